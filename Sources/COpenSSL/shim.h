#ifndef PAYPANEL_COPENSSL_SHIM_H
#define PAYPANEL_COPENSSL_SHIM_H

// OpenSSL 3 APIs only: hide the 1.x interfaces (and their deprecation warnings).
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/bio.h>
#include <openssl/objects.h>
#include <openssl/asn1.h>
#include <openssl/bn.h>

// Macros built from other macros are invisible to Swift; name the ones we use.
enum {
    PAYPANEL_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY,
    PAYPANEL_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR,
};

// Function-like macros are invisible to Swift; wrap the ones we use.
static inline EVP_PKEY *paypanel_EVP_EC_gen(const char *curve) {
    return EVP_EC_gen(curve);
}

static inline EVP_PKEY *paypanel_EVP_RSA_gen(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

static inline int paypanel_EVP_PKEY_CTX_set_rsa_padding(EVP_PKEY_CTX *ctx, int padding) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, padding);
}

static inline long paypanel_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

static inline int paypanel_BIO_set_close(BIO *bio, long flag) {
    return (int)BIO_set_close(bio, flag);
}

static inline int paypanel_OPENSSL_free(void *ptr) {
    OPENSSL_free(ptr);
    return 1;
}

static inline int paypanel_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *paypanel_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

static inline STACK_OF(X509) *paypanel_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

static inline int paypanel_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) {
    return sk_X509_push(stack, cert);
}

static inline void paypanel_sk_X509_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

static inline void paypanel_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

// CMS SignerInfo stacks (Apple Pay token signatures).
static inline int paypanel_sk_CMS_SignerInfo_num(const STACK_OF(CMS_SignerInfo) *stack) {
    return sk_CMS_SignerInfo_num(stack);
}

static inline CMS_SignerInfo *paypanel_sk_CMS_SignerInfo_value(const STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}

#endif
