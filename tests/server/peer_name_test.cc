// Connection names and what each connection's calls took: the two must
// agree on a connection's name whichever way gRPC learned of it, or an
// honest connection would look like one holding everything it ever sent
// (TransportShedder).
#include <arpa/inet.h>
#include <netinet/in.h>

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "server/transport/arrival_ledger.h"
#include "server/transport/connection_gate.h"

namespace collision::server {
namespace {

sockaddr_storage V6(const char* host, uint16_t port) {
  sockaddr_storage a{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(a);
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(port);
  EXPECT_EQ(inet_pton(AF_INET6, host, &v6.sin6_addr), 1) << host;
  return a;
}

TEST(PeerName, NamesAConnectionAlikeTheWayEitherListenerLearnsOfIt) {
  sockaddr_storage v4{};
  auto& in = reinterpret_cast<sockaddr_in&>(v4);
  in.sin_family = AF_INET;
  in.sin_port = htons(5000);
  ASSERT_EQ(inet_pton(AF_INET, "10.1.2.3", &in.sin_addr), 1);
  EXPECT_EQ(AddressName(v4), "ipv4:10.1.2.3:5000");
  EXPECT_EQ(PeerName("ipv4:10.1.2.3:5000"), AddressName(v4));

  // gRPC's own listener names IPv6 peers as a URI (measured on 1.51).
  EXPECT_EQ(AddressName(V6("::1", 46916)), "ipv6:[::1]:46916");
  EXPECT_EQ(PeerName("ipv6:%5B::1%5D:46916"), "ipv6:[::1]:46916");
  EXPECT_EQ(PeerName("ipv6:[::1]:46916"), "ipv6:[::1]:46916");
  EXPECT_EQ(PeerName("ipv6:%5B2001:db8:0:0::7%5D:80"),
            AddressName(V6("2001:db8::7", 80)));
  // A scope does not reach the socket's address (getpeername): dropped.
  EXPECT_EQ(PeerName("ipv6:%5Bfe80::1%25eth0%5D:9"),
            AddressName(V6("fe80::1", 9)));
  // An IPv4 caller of a dual-stack socket, as gRPC names it.
  EXPECT_EQ(AddressName(V6("::ffff:10.1.2.3", 5000)), "ipv4:10.1.2.3:5000");

  // Anything else is left as it is.
  for (const char* other : {"unix:/tmp/s", "ipv6:", "ipv6:%5B::1%5D",
                            "ipv6:%5Bnot-an-address%5D:1", "fd:notanumber"}) {
    EXPECT_EQ(PeerName(other), other);
  }
}

TEST(ArrivalLedger, WhatArrivedLessWhatCallsTookAndNoCredit) {
  ArrivalLedger ledger;
  const std::string a = "ipv4:10.0.0.1:1", b = "ipv4:10.0.0.2:2";
  // A call with 100 header bytes and a 1 MiB message.
  ledger.CallStarted(a, 100);
  ledger.MessageTaken(a, 1 << 20);
  const int64_t took = 100 + ArrivalLedger::kPerCall + (1 << 20) +
                       ArrivalLedger::MessageAllowance(1 << 20);
  std::map<std::string, int64_t> received = {{a, took - 500}, {b, 7000}};
  std::map<std::string, int64_t> unaccounted;
  ledger.Reconcile(received, &unaccounted);
  EXPECT_EQ(unaccounted[a], 0);     // framing came in under the allowance
  EXPECT_EQ(unaccounted[b], 7000);  // never a call: all of it held
  // The 500 bytes of allowance left over are not kept as credit: the next
  // 500 bytes that no call takes are held.
  received[a] += 500;
  ledger.Reconcile(received, &unaccounted);
  EXPECT_EQ(unaccounted[a], 500);
  // A connection missing from two reconciliations in a row is forgotten;
  // from one, it is kept (it may have opened after the listing).
  received.erase(a);
  unaccounted.clear();
  ledger.Reconcile(received, &unaccounted);
  received[a] = took;
  ledger.Reconcile(received, &unaccounted);
  EXPECT_EQ(unaccounted[a], 500);  // still known: what it took counts
  received.erase(a);
  ledger.Reconcile(received, &unaccounted);
  ledger.Reconcile(received, &unaccounted);
  received[a] = took;
  ledger.Reconcile(received, &unaccounted);
  EXPECT_EQ(unaccounted[a], took);  // forgotten: a new connection's name
}

}  // namespace
}  // namespace collision::server
