#!/usr/bin/env bash
# A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost (P-256, one
# day), for the client tests over https (the daemon's server.tls_cert / server.tls_key):
#   tests/clients/make_test_cert.sh DIR   # writes DIR/ca.pem, DIR/server.pem, DIR/server.key
# Needs the `openssl` command (Debian's openssl; scripts/install-deps.sh installs it).
set -euo pipefail
dir=${1:?usage: make_test_cert.sh DIR}
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 1 -subj "/CN=mnemo test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  2> /dev/null
openssl req "${ec[@]}" -keyout server.key -out server.csr -subj "/CN=127.0.0.1" 2> /dev/null
printf '%s\n' "basicConstraints=critical,CA:FALSE" "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  "extendedKeyUsage=serverAuth" > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
  -extfile server.ext -out server.pem 2> /dev/null
rm -f server.csr server.ext ca.srl
