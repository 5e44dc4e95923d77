/* assist_detector.h - the functions libAssistDetector.so exports (types in assist_detector_api.h). Plugins do
 * not link this library: ObjectDetection opens it on first use. */
#ifndef ASSIST_DETECTOR_H
#define ASSIST_DETECTOR_H

#include "assist_detector_api.h"

#ifdef __cplusplus
extern "C" {
#endif

assist_det *assist_det_open(const char *cfg, const char *weights, int input_size, int threads, char **err);
int assist_det_run(assist_det *det, const uint8_t *bgr, int width, int height, size_t stride, float confidence,
                   float nms, int only_class, assist_det_box *out, int max, double *ms);
void assist_det_close(assist_det *det);
assist_trk *assist_trk_open(void);
int assist_trk_start(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride,
                     const assist_det_box *box);
int assist_trk_step(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride, assist_det_box *box);
void assist_trk_close(assist_trk *trk);
assist_emb *assist_emb_open(const char *onnx, int input_size, int threads, char **err);
int assist_emb_run(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride,
                   const assist_det_box *regions, int count, float *out);
int assist_emb_coarse(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride, int map_width,
                      const assist_det_box *regions, int count, float *out);
void assist_emb_close(assist_emb *emb);
int assist_pic_measure(const uint8_t *bgr, const uint8_t *previous, int width, int height, size_t stride,
                       assist_pic_measures *out);

#ifdef __cplusplus
}
#endif

#endif
