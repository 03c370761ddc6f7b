#include "server/transport/security.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "grpcpp/security/server_credentials.h"

namespace collision::server {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", what, " file ", path));
  }
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Constant-time equality: the time depends only on the lengths.
bool SameBytes(absl::string_view a, absl::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files) {
  if (files.cert_chain_file.empty() && files.private_key_file.empty()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "a client CA needs TLS: set the certificate and key too");
    }
    return grpc::InsecureServerCredentials();
  }
  if (files.cert_chain_file.empty() || files.private_key_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both a certificate chain file and a private key file");
  }
  auto cert = ReadFile(files.cert_chain_file, "TLS certificate");
  if (!cert.ok()) return cert.status();
  auto key = ReadFile(files.private_key_file, "TLS private key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(
      files.client_ca_file.empty()
          ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
          : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!files.client_ca_file.empty()) {
    auto ca = ReadFile(files.client_ca_file, "client CA");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
  }
  options.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(options);
}

TokenSet::TokenSet(std::vector<std::string> tokens)
    : tokens_(std::move(tokens)) {}

absl::StatusOr<TokenSet> TokenSet::LoadFile(const std::string& path) {
  auto content = ReadFile(path, "token");
  if (!content.ok()) return content.status();
  std::vector<std::string> tokens;
  for (absl::string_view line : absl::StrSplit(*content, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    tokens.emplace_back(line);
  }
  if (tokens.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("token file ", path, " holds no token"));
  }
  return TokenSet(std::move(tokens));
}

bool TokenSet::Accepts(absl::string_view authorization) const {
  // RFC 7235 2.1: the auth scheme is case-insensitive ("bearer" is Bearer).
  constexpr absl::string_view kScheme = "Bearer ";
  const bool bearer = absl::StartsWithIgnoreCase(authorization, kScheme);
  const absl::string_view presented =
      bearer ? authorization.substr(kScheme.size()) : absl::string_view();
  bool any = false;
  for (const std::string& t : tokens_) any |= SameBytes(presented, t);
  return bearer && any;
}

}  // namespace collision::server
