// The two echo cancellers Debian packages, on the same recordings (issue 33): speexdsp's (MDF and its
// preprocessor's residual echo suppression) and WebRTC's (audio-processing 0.3: AEC with the extended filter
// and delay-agnostic mode). bench/voice.sh builds this with g++ and runs it on rooms made by
// scripts/echo-room.py; docs/voice.md says which one Assist uses and why.
//
//   compare MIC.wav REFERENCE.wav OUT_PREFIX SHIFT_MS [FROM_MS-TO_MS ...]
//
// MIC and REFERENCE are 16 kHz mono, sample 0 of both the same moment. SHIFT_MS delays the reference before
// speex sees it (the delay Assist's estimator finds, less a margin); WebRTC is told the same delay and finds its
// own on top. The spans are where a person speaks: echo return loss enhancement is measured outside them, over
// the 10 ms blocks where the reference sounds. Writes OUT_PREFIX-speex.wav and OUT_PREFIX-webrtc.wav and prints
// one JSON line per canceller: {"canceller", "erle_db", "cpu_ms_per_s"}.
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

const int kRate = 16000;
const int kFrame = 160;

std::vector<int16_t> ReadWav(const char *path) {
  FILE *file = std::fopen(path, "rb");
  if (!file) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(1);
  }
  std::vector<int16_t> samples;
  char id[4];
  uint32_t size;
  std::fseek(file, 12, SEEK_SET);
  while (std::fread(id, 1, 4, file) == 4 && std::fread(&size, 4, 1, file) == 1) {
    if (std::memcmp(id, "data", 4) == 0) {
      samples.resize(size / 2);
      size_t got = std::fread(samples.data(), 2, samples.size(), file);
      samples.resize(got);
      break;
    }
    std::fseek(file, size + (size & 1), SEEK_CUR);
  }
  std::fclose(file);
  return samples;
}

void WriteWav(const std::string &path, const std::vector<int16_t> &samples) {
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) return;
  uint32_t data = samples.size() * 2, riff = 36 + data, fmt = 16, rate = kRate, bytes = kRate * 2;
  uint16_t pcm = 1, channels = 1, align = 2, bits = 16;
  std::fwrite("RIFF", 1, 4, file);
  std::fwrite(&riff, 4, 1, file);
  std::fwrite("WAVEfmt ", 1, 8, file);
  std::fwrite(&fmt, 4, 1, file);
  std::fwrite(&pcm, 2, 1, file);
  std::fwrite(&channels, 2, 1, file);
  std::fwrite(&rate, 4, 1, file);
  std::fwrite(&bytes, 4, 1, file);
  std::fwrite(&align, 2, 1, file);
  std::fwrite(&bits, 2, 1, file);
  std::fwrite("data", 1, 4, file);
  std::fwrite(&data, 4, 1, file);
  std::fwrite(samples.data(), 2, samples.size(), file);
  std::fclose(file);
}

double Energy(const int16_t *samples, int count) {
  double sum = 0;
  for (int i = 0; i < count; i++) sum += double(samples[i]) * samples[i];
  return sum;
}

// ERLE over the blocks outside the spans where the reference sounds (within 40 dB of its loudest block).
double Erle(const std::vector<int16_t> &mic, const std::vector<int16_t> &out, const std::vector<int16_t> &reference,
            const std::vector<std::pair<int, int>> &spans) {
  size_t blocks = std::min(mic.size(), out.size()) / kFrame;
  double loudest = 0;
  for (size_t b = 0; b < blocks && (b + 1) * kFrame <= reference.size(); b++)
    loudest = std::max(loudest, Energy(&reference[b * kFrame], kFrame));
  double in = 0, left = 0;
  // The first two seconds are the cancellers' to learn the room in.
  for (size_t b = 2 * kRate / kFrame; b < blocks && (b + 1) * kFrame <= reference.size(); b++) {
    int ms = int(b * 10);
    bool speaking = false;
    for (auto &span : spans) speaking = speaking || (ms >= span.first - 200 && ms <= span.second + 200);
    if (speaking || Energy(&reference[b * kFrame], kFrame) < loudest * 1e-4) continue;
    in += Energy(&mic[b * kFrame], kFrame);
    left += Energy(&out[b * kFrame], kFrame);
  }
  return left > 0 ? 10 * std::log10(in / left) : 99;
}

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: compare MIC.wav REFERENCE.wav OUT_PREFIX SHIFT_MS [FROM_MS-TO_MS ...]\n");
    return 2;
  }
  std::vector<int16_t> mic = ReadWav(argv[1]);
  std::vector<int16_t> reference = ReadWav(argv[2]);
  std::string prefix = argv[3];
  int shift = std::atoi(argv[4]) * kRate / 1000;
  std::vector<std::pair<int, int>> spans;
  for (int i = 5; i < argc; i++) {
    int from = 0, to = 0;
    if (std::sscanf(argv[i], "%d-%d", &from, &to) == 2) spans.push_back({from, to});
  }
  size_t frames = mic.size() / kFrame;
  mic.resize(frames * kFrame);
  std::vector<int16_t> shifted(mic.size(), 0);
  for (size_t i = shift; i < shifted.size(); i++)
    if (i - shift < reference.size()) shifted[i] = reference[i - shift];
  reference.resize(mic.size(), 0);
  double seconds = double(mic.size()) / kRate;

  // speexdsp: a 256 ms filter (the room's tail after the margin), residual echo suppressed by the preprocessor.
  {
    std::vector<int16_t> out(mic.size());
    double start = Seconds();
    SpeexEchoState *echo = speex_echo_state_init(kFrame, 4096);
    int rate = kRate;
    speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    SpeexPreprocessState *pre = speex_preprocess_state_init(kFrame, kRate);
    speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
    for (size_t f = 0; f < frames; f++) {
      speex_echo_cancellation(echo, &mic[f * kFrame], &shifted[f * kFrame], &out[f * kFrame]);
      speex_preprocess_run(pre, &out[f * kFrame]);
    }
    speex_preprocess_state_destroy(pre);
    speex_echo_state_destroy(echo);
    double cpu = (Seconds() - start) * 1000 / seconds;
    WriteWav(prefix + "-speex.wav", out);
    std::printf("{\"canceller\":\"speexdsp\",\"erle_db\":%.1f,\"cpu_ms_per_s\":%.1f}\n", Erle(mic, out, shifted, spans),
                cpu);
  }

  // WebRTC: the AEC with its extended filter and delay-agnostic mode, told the same delay.
  {
    std::vector<int16_t> out(mic.size());
    double start = Seconds();
    webrtc::Config config;
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
    apm->echo_cancellation()->enable_drift_compensation(false);
    apm->echo_cancellation()->set_suppression_level(webrtc::EchoCancellation::kHighSuppression);
    apm->echo_cancellation()->Enable(true);
    webrtc::AudioFrame far, near;
    for (size_t f = 0; f < frames; f++) {
      far.sample_rate_hz_ = near.sample_rate_hz_ = kRate;
      far.num_channels_ = near.num_channels_ = 1;
      far.samples_per_channel_ = near.samples_per_channel_ = kFrame;
      std::memcpy(far.data_, &reference[f * kFrame], kFrame * 2);
      std::memcpy(near.data_, &mic[f * kFrame], kFrame * 2);
      apm->ProcessReverseStream(&far);
      apm->set_stream_delay_ms(shift * 1000 / kRate + 20);
      apm->ProcessStream(&near);
      std::memcpy(&out[f * kFrame], near.data_, kFrame * 2);
    }
    delete apm;
    double cpu = (Seconds() - start) * 1000 / seconds;
    WriteWav(prefix + "-webrtc.wav", out);
    std::printf("{\"canceller\":\"webrtc\",\"erle_db\":%.1f,\"cpu_ms_per_s\":%.1f}\n", Erle(mic, out, shifted, spans),
                cpu);
  }
  return 0;
}
