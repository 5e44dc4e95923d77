#include "assist_detector_api.h"

#include <dlfcn.h>

int assist_det_functions_from(void *library, assist_det_functions *out) {
    if (!library || !out) return 0;
    *(void **)(&out->open) = dlsym(library, "assist_det_open");
    *(void **)(&out->run) = dlsym(library, "assist_det_run");
    *(void **)(&out->close) = dlsym(library, "assist_det_close");
    return out->open && out->run && out->close;
}
