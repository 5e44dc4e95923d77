/* OpenSSL's message digests (libcrypto, Debian's libssl-dev): SHA-256 of models and media files. */
#include <openssl/evp.h>
