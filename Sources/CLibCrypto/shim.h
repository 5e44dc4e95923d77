/* OpenSSL's libcrypto (Debian's libssl-dev): SHA-256 of models, media files and plugin libraries; the kiosk's
 * salted PIN hash (PBKDF2-HMAC-SHA256), its salt (RAND_bytes) and its comparison in constant time. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
