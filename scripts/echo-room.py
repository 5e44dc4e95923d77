#!/usr/bin/env python3
"""A room in which Assist's own speech comes back into the microphone (issue 33, docs/voice.md "Barge-in").

Given what the speakers played (a reading rendered by espeak-ng) and, optionally, commands said by a person
(natural voices rendered by scripts/voice-set.py) at given moments, writes what a microphone in the room hears:

  - the played sound through a loudspeaker (a little soft clipping), a delay (the sound card's and the air's),
    and a room: a direct path, a few early reflections and a reverberant tail decaying by RT60;
  - at a level set against the person's voice (--echo-db 0: as loud as the voice; 6: twice as loud);
  - the person's commands, room noise (pink), optionally a clock that runs a little fast (--drift-ppm) and a
    microphone turned up until it clips (--clip);

and beside it the reference as the speakers played it, starting with the microphone (sample 0 of both is the
same moment), for `assist listen --mic wav:OUT/mic.wav --reference wav:OUT/reference.wav`.

  echo-room.py OUT --reading READING.wav [--say WAV@SECONDS ...] [--delay-ms 80] [--rt60-ms 350]
               [--echo-db 0] [--noise-db -35] [--drift-ppm 0] [--clip] [--lead-seconds 1] [--seed 1]

OUT/spans.json lists each command said: {"wav", "from_ms", "to_ms"} on the microphone's time line, and the
figures used. Needs numpy (the test voices' environment has it: .build/voices/bin/python).
"""
import argparse
import json
import os
import wave

import numpy as np

RATE = 16000
# The voice's level when no command is said, to set the echo against: speech at -26 dBFS RMS, a person a metre
# from a laptop's microphone.
NOMINAL_VOICE_RMS = 10 ** (-26 / 20)


def read_wav(path):
    with wave.open(path, "rb") as file:
        rate, channels, width = file.getframerate(), file.getnchannels(), file.getsampwidth()
        if width != 2:
            raise SystemExit(f"{path}: 16-bit PCM only")
        samples = np.frombuffer(file.readframes(file.getnframes()), dtype="<i2").astype(np.float64) / 32768
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples, rate


def resample(samples, source_rate, target_rate):
    if source_rate == target_rate or len(samples) == 0:
        return samples
    count = int(round(len(samples) * target_rate / source_rate))
    positions = np.arange(count) * (source_rate / target_rate)
    return np.interp(positions, np.arange(len(samples)), samples)


def write_wav(path, samples, rate):
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(pcm.tobytes())


def active_rms(samples):
    """The RMS over the loudest 10 ms blocks that hold the speech (those within 30 dB of the loudest)."""
    blocks = samples[: len(samples) // 160 * 160].reshape(-1, 160)
    energy = (blocks**2).mean(axis=1)
    if len(energy) == 0 or energy.max() <= 0:
        return 0.0
    return float(np.sqrt(energy[energy > energy.max() / 1000].mean()))


def pink(count, rng):
    """Pink noise (power falling 3 dB an octave, shaped in the frequency domain), RMS 1."""
    spectrum = np.fft.rfft(rng.standard_normal(count))
    frequencies = np.fft.rfftfreq(count, 1 / RATE)
    spectrum /= np.sqrt(np.maximum(frequencies, 20))
    out = np.fft.irfft(spectrum, count)
    return out / (np.sqrt((out**2).mean()) or 1)


def room_response(delay_ms, rt60_ms, drr_db, rng):
    """Direct path after the delay, six early reflections within 25 ms of it, then a tail decaying 60 dB in
    RT60 holding `drr_db` less energy than the direct path, low-passed as walls and air do."""
    delay = int(delay_ms * RATE / 1000)
    length = delay + int(rt60_ms * RATE / 1000)
    response = np.zeros(length + 1)
    response[delay] = 1.0
    for _ in range(6):
        at = delay + int(rng.uniform(1.5, 25) * RATE / 1000)
        if at < len(response):
            response[at] += rng.uniform(-0.5, 0.5)
    tail_start = delay + int(5 * RATE / 1000)
    tail = np.arange(len(response) - tail_start)
    decay = np.exp(-6.9 * tail / (rt60_ms * RATE / 1000))
    reverberant = rng.standard_normal(len(tail)) * decay
    response[tail_start:] += reverberant * np.sqrt(10 ** (-drr_db / 10) / (reverberant**2).sum())
    # A gentle low-pass (two-point average, twice).
    response = np.convolve(response, [0.25, 0.5, 0.25])[: len(response)]
    return response


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--reading", required=True, help="what the speakers played (any rate, 16-bit)")
    parser.add_argument("--say", action="append", default=[], help="WAV@SECONDS: a command said at that moment")
    parser.add_argument("--delay-ms", type=float, default=80)
    parser.add_argument("--rt60-ms", type=float, default=350)
    parser.add_argument("--drr-db", type=float, default=3, help="direct-to-reverberant ratio")
    parser.add_argument("--echo-db", type=float, default=0, help="the echo's level against the voice's")
    parser.add_argument("--noise-db", type=float, default=-35, help="room noise against the voice")
    parser.add_argument("--drift-ppm", type=float, default=0, help="the microphone's clock against the speakers'")
    parser.add_argument("--clip", action="store_true", help="turn the microphone up until it clips")
    parser.add_argument("--lead-seconds", type=float, default=1.0, help="quiet room before the reading starts")
    parser.add_argument("--tail-seconds", type=float, default=1.5, help="quiet room after it ends")
    parser.add_argument(
        "--echo-until", type=float, help="seconds: the speakers fall silent then (a command stopped them)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)

    played, played_rate = read_wav(args.reading)
    lead = int(args.lead_seconds * RATE)
    reference = np.concatenate([np.zeros(lead), resample(played, played_rate, RATE), np.zeros(int(args.tail_seconds * RATE))])

    commands = []
    for item in args.say:
        path, _, at = item.rpartition("@")
        voice, rate = read_wav(path)
        commands.append((path, int(float(at) * RATE), resample(voice, rate, RATE)))
    voice_rms = np.mean([active_rms(voice) for _, _, voice in commands]) if commands else NOMINAL_VOICE_RMS

    if args.echo_until is not None:
        reference[int(args.echo_until * RATE) :] = 0
    # The loudspeaker: a little soft clipping at its loudest.
    peak = np.abs(reference).max() or 1
    speaker = np.tanh(0.5 * reference / peak) * peak / np.tanh(0.5)
    echo = np.convolve(speaker, room_response(args.delay_ms, args.rt60_ms, args.drr_db, rng))[: len(reference)]
    if args.drift_ppm:
        echo = resample(echo, RATE * (1 + args.drift_ppm * 1e-6), RATE)[: len(reference)]
        echo = np.pad(echo, (0, len(reference) - len(echo)))
    echo *= voice_rms * 10 ** (args.echo_db / 20) / (active_rms(echo) or 1)

    length = max([len(reference)] + [at + len(voice) + RATE // 2 for _, at, voice in commands])
    mic = np.zeros(length)
    mic[: len(echo)] += echo
    spans = []
    for path, at, voice in commands:
        mic[at : at + len(voice)] += voice
        spans.append({"wav": path, "from_ms": at * 1000 // RATE, "to_ms": (at + len(voice)) * 1000 // RATE})
    mic += pink(length, rng) * voice_rms * 10 ** (args.noise_db / 20)
    if args.clip:
        mic *= 0.999 / (np.percentile(np.abs(mic), 99.5) or 1)
    else:
        # A microphone set up well: its loudest at -6 dBFS, never clipping.
        mic *= min(1.0, 0.5 / (np.abs(mic).max() or 1))
    mic = np.clip(mic, -1, 32767 / 32768)
    reference = np.pad(reference, (0, length - len(reference)))

    write_wav(os.path.join(args.out, "mic.wav"), mic, RATE)
    write_wav(os.path.join(args.out, "reference.wav"), reference, RATE)
    with open(os.path.join(args.out, "spans.json"), "w") as file:
        json.dump(
            {
                "commands": spans,
                "delay_ms": args.delay_ms,
                "rt60_ms": args.rt60_ms,
                "drr_db": args.drr_db,
                "echo_db": args.echo_db,
                "noise_db": args.noise_db,
                "drift_ppm": args.drift_ppm,
                "clip": args.clip,
                "reading_ms": len(played) * 1000 // played_rate,
                "lead_ms": lead * 1000 // RATE,
            },
            file,
            indent=1,
        )


if __name__ == "__main__":
    main()
