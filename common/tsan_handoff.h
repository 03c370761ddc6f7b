// Tells ThreadSanitizer about the hand-offs gRPC makes between its threads.
// Header-only, used by the server and the client library (never installed).
//
// A reactor's callbacks (OnReadDone, OnWriteDone, OnDone; a client call's
// completion) run one after another, each after the operation started by
// the previous one, but possibly on different gRPC threads. gRPC orders them
// with atomics and futexes inside the prebuilt libgrpc, which ThreadSanitizer
// cannot see, so without these marks every field of a reactor looks raced.
// HandOff(p) before starting a gRPC operation and TakeOver(p) on entering its
// callback state that ordering for our own objects — and only it: a worker
// thread touching the reactor outside that sequence is still reported.
//
// Both compile to nothing outside a -fsanitize=thread build.
#ifndef COLLISION_COMMON_TSAN_HANDOFF_H_
#define COLLISION_COMMON_TSAN_HANDOFF_H_

#if defined(__SANITIZE_THREAD__)
#define COLLISION_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COLLISION_TSAN 1
#endif
#endif

#ifdef COLLISION_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace collision {

inline void HandOff([[maybe_unused]] const void* object) {
#ifdef COLLISION_TSAN
  __tsan_release(const_cast<void*>(object));
#endif
}

inline void TakeOver([[maybe_unused]] const void* object) {
#ifdef COLLISION_TSAN
  __tsan_acquire(const_cast<void*>(object));
#endif
}

}  // namespace collision

#endif  // COLLISION_COMMON_TSAN_HANDOFF_H_
