// Transport security and caller authentication of the server.
//
// - TLS from PEM files; with a client CA file, mutual TLS: clients must
//   present a certificate signed by that CA.
// - Bearer tokens from a file (one per line; empty lines and lines starting
//   with '#' are ignored). Every collision.v1 call must carry
//   `authorization: Bearer <token>` with one of them, else UNAUTHENTICATED.
//   The check runs in the service itself, not in an AuthMetadataProcessor:
//   gRPC 1.51 consults a processor only on TLS ports and it cannot tell
//   which method is called, while probes must reach the health service
//   without a token. So grpc.health.v1 (and reflection) stay open; put the
//   port behind TLS when tokens cross untrusted networks.
// - Tokens are compared in constant time and never logged.
#ifndef COLLISION_SERVER_TRANSPORT_SECURITY_H_
#define COLLISION_SERVER_TRANSPORT_SECURITY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/security/server_credentials.h"

namespace collision::server {

struct TlsFiles {
  std::string cert_chain_file;   // server certificate chain (PEM)
  std::string private_key_file;  // its private key (PEM)
  // CA (PEM) that client certificates must chain to; empty: no client
  // certificate asked for (plain TLS).
  std::string client_ca_file;
};

// Insecure credentials when no certificate is configured; otherwise TLS or
// mutual TLS. Fails with a clear message on unreadable or missing files.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files);

class TokenSet {
 public:
  static absl::StatusOr<TokenSet> LoadFile(const std::string& path);
  explicit TokenSet(std::vector<std::string> tokens);

  std::size_t size() const { return tokens_.size(); }
  // Whether `authorization` is "Bearer <t>" for one of the tokens. Takes
  // the same time whatever matches (over all tokens and their bytes).
  bool Accepts(absl::string_view authorization) const;

 private:
  std::vector<std::string> tokens_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_SECURITY_H_
