// The service takes its requests as raw bytes (gRPC's "raw" callback
// methods) and parses them itself, for two reasons:
// - gRPC 1.51's typed callback handlers answer a request that does not parse
//   with UNIMPLEMENTED and an empty message (server_callback_handlers.h), as
//   if the method did not exist; and a typed stream read takes such a message
//   for the end of the stream, so garbage would end with OK. Here the caller
//   gets INVALID_ARGUMENT saying which message type did not parse.
// - Each unary call's request and response live on one protobuf arena:
//   per-pair requests parse faster on an arena than on the heap
//   (docs/decisions/0024-one-arena-per-unary-call.md), and the whole call
//   is freed at once.
#ifndef COLLISION_SERVER_RAW_MESSAGES_H_
#define COLLISION_SERVER_RAW_MESSAGES_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/status.h"

namespace collision::server {

// Parses `bytes` into `message`; false when they are not a valid encoding.
template <typename Message>
bool ParseMessage(const grpc::ByteBuffer& bytes, Message* message) {
  grpc::ByteBuffer shared(bytes);  // shares the slices; parsing consumes it
  return grpc::SerializationTraits<Message>::Deserialize(&shared, message).ok();
}

// Calls `read(ZeroCopyInputStream*)` over `bytes` (sharing their slices,
// copying nothing) and returns what it returns.
template <typename Read>
auto ReadBytes(const grpc::ByteBuffer& bytes, Read read) {
  grpc::ByteBuffer shared(bytes);
  grpc::ProtoBufferReader reader(&shared);
  return read(static_cast<google::protobuf::io::ZeroCopyInputStream*>(&reader));
}

// The status for bytes that did not parse as a `Message`; `what` names them
// ("request", "message 3 of the stream").
template <typename Message>
grpc::Status NotAMessage(const std::string& what, std::size_t size) {
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      absl::StrCat(what, " is not a valid ", Message::descriptor()->full_name(),
                   ": its ", size,
                   " bytes are not a protobuf encoding of it (truncated, "
                   "corrupt, or a different message type)"));
}

// Serializes `message` into `bytes` (replacing what was there).
template <typename Message>
grpc::Status SerializeMessage(const Message& message, grpc::ByteBuffer* bytes) {
  bytes->Clear();  // gRPC's writer asserts on a buffer still holding data
  bool own_buffer = false;
  return grpc::SerializationTraits<Message>::Serialize(message, bytes,
                                                       &own_buffer);
}

// The bytes of `bytes` in one piece, held by `*slice`: shared when gRPC
// received them in one slice, copied otherwise. False when they cannot be
// read.
inline bool ContiguousBytes(const grpc::ByteBuffer& bytes, grpc::Slice* slice,
                            absl::string_view* view) {
  if (!bytes.TrySingleSlice(slice).ok() &&
      !bytes.DumpToSingleSlice(slice).ok()) {
    return false;
  }
  *view = absl::string_view(reinterpret_cast<const char*>(slice->begin()),
                            slice->size());
  return true;
}

// Encoded bytes handed to gRPC without a copy: the slice owns the string.
inline grpc::ByteBuffer BytesOf(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  grpc::Slice slice(
      owned->data(), owned->size(),
      [](void* p) { delete static_cast<std::string*>(p); }, owned);
  return grpc::ByteBuffer(&slice, 1);
}

// A unary call's (or one stream message's) request and response on one
// arena, freed at once when the answer is encoded.
template <typename Request, typename Response>
struct ArenaCall {
  google::protobuf::Arena arena;
  Request* const request =
      google::protobuf::Arena::CreateMessage<Request>(&arena);
  Response* const response =
      google::protobuf::Arena::CreateMessage<Response>(&arena);
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_RAW_MESSAGES_H_
