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
    *(void **)(&out->emb_open) = dlsym(library, "assist_emb_open");
    *(void **)(&out->emb_run) = dlsym(library, "assist_emb_run");
    *(void **)(&out->emb_coarse) = dlsym(library, "assist_emb_coarse");
    *(void **)(&out->emb_close) = dlsym(library, "assist_emb_close");
    *(void **)(&out->pic_measure) = dlsym(library, "assist_pic_measure");
    if (!out->emb_open || !out->emb_run || !out->emb_coarse || !out->emb_close || !out->pic_measure) {
        out->emb_open = NULL;
        out->emb_run = NULL;
        out->emb_coarse = NULL;
        out->emb_close = NULL;
        out->pic_measure = NULL;
    }
    return out->open && out->run && out->close;
}

int assist_vid_functions_from(void *library, assist_det_functions *out) {
    if (!library || !out) return 0;
    *(void **)(&out->vid_open) = dlsym(library, "assist_vid_open");
    *(void **)(&out->vid_next) = dlsym(library, "assist_vid_next");
    *(void **)(&out->vid_close) = dlsym(library, "assist_vid_close");
    if (!out->vid_open || !out->vid_next || !out->vid_close) {
        out->vid_open = NULL;
        out->vid_next = NULL;
        out->vid_close = NULL;
        return 0;
    }
    return 1;
}
