#include "assist_detector_api.h"

#include <dlfcn.h>

int assist_det_functions_from(void *library, assist_det_functions *out) {
    if (!library || !out) return 0;
    *(void **)(&out->open) = dlsym(library, "assist_det_open");
    *(void **)(&out->run) = dlsym(library, "assist_det_run");
    *(void **)(&out->close) = dlsym(library, "assist_det_close");
    *(void **)(&out->trk_open) = dlsym(library, "assist_trk_open");
    *(void **)(&out->trk_start) = dlsym(library, "assist_trk_start");
    *(void **)(&out->trk_step) = dlsym(library, "assist_trk_step");
    *(void **)(&out->trk_close) = dlsym(library, "assist_trk_close");
    if (!out->trk_open || !out->trk_start || !out->trk_step || !out->trk_close) {
        out->trk_open = NULL;
        out->trk_start = NULL;
        out->trk_step = NULL;
        out->trk_close = NULL;
    }
    return out->open && out->run && out->close;
}
