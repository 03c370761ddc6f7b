#!/usr/bin/env bash
# Makes throw-away test certificates in $1: a CA, a server certificate for
# 127.0.0.1/localhost, a client certificate from the same CA, and a client
# certificate from an unrelated ("rogue") CA. Nothing is committed.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1; }
ca() {  # name
  quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" \
    -keyout "$1.key" -out "$1.pem"
}
leaf() {  # name, ca, extensions
  quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" \
    -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" >"$1.ext"
  quiet openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" \
    -CAcreateserial -days 2 -extfile "$1.ext" -out "$1.pem"
}
ca ca
ca rogue-ca
leaf server ca "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
leaf client ca "extendedKeyUsage=clientAuth"
leaf rogue-client rogue-ca "extendedKeyUsage=clientAuth"
