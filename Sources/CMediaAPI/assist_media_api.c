/* Compiled so that targets including the header rebuild when it changes (a header-only target never does). */
#include "assist_media_api.h"
