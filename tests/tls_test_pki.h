// A throwaway CA and a server certificate it signed, made with OpenSSL for
// the TLS tests (transport/http/tls.h, tests/e2e/tls_e2e_test.cc): P-256 keys,
// valid for a day, the server's for 127.0.0.1 and localhost.
#pragma once

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "test_util.h"

namespace mnemo::testing {

namespace pki_detail {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

inline void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  ASSERT_NE(ext, nullptr) << value;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A P-256 certificate for `name`, signed by `issuer_key` (itself when null).
inline Cert MakeCert(EVP_PKEY* key, const char* name, X509* issuer, EVP_PKEY* issuer_key, bool ca) {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), ca ? 1 : 2);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(name), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (ca) {
    AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    AddExtension(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
    AddExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
  }
  X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256());
  return cert;
}

inline void WritePem(const std::string& path, X509* cert, EVP_PKEY* key) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  if (cert != nullptr) PEM_write_X509(f, cert);
  if (key != nullptr) PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  fclose(f);
}

}  // namespace pki_detail

// A test CA and a server certificate it signed, for 127.0.0.1 and localhost.
struct TestPki {
  explicit TestPki(const TempDir& dir)
      : ca(dir.Sub("ca.pem")), cert(dir.Sub("server.pem")), key(dir.Sub("server.key")) {
    pki_detail::Key ca_key(EVP_EC_gen("P-256"));
    pki_detail::Key server_key(EVP_EC_gen("P-256"));
    pki_detail::Cert ca_cert =
        pki_detail::MakeCert(ca_key.get(), "mnemo test CA", nullptr, nullptr, true);
    pki_detail::Cert server_cert =
        pki_detail::MakeCert(server_key.get(), "127.0.0.1", ca_cert.get(), ca_key.get(), false);
    pki_detail::WritePem(ca, ca_cert.get(), nullptr);
    pki_detail::WritePem(cert, server_cert.get(), nullptr);
    pki_detail::WritePem(key, nullptr, server_key.get());
  }
  std::string ca, cert, key;
};

}  // namespace mnemo::testing
