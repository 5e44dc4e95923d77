"""Debian flite's voices as the voice sets and benches use them (scripts/voice-set.py, bench/speech_hour.py): each
saying at its own pace and at a pitch varied around the speaker's."""
import subprocess

# The pitch each voice is varied around (Hz): kal and rms US men, awb a Scottish man, slt a US woman.
PITCH = {"kal": 100, "slt": 170, "rms": 105, "awb": 115}


def say(speaker, text, out, rng, pace=(0.8, 1.25)):
    """Writes `text` said by `speaker` to the WAV file `out` (flite's own rate), its pace drawn from `pace` (times
    the voice's own duration) and its pitch within 12 % of the speaker's, both from `rng`."""
    subprocess.run(["flite", "-voice", speaker, "--setf", f"duration_stretch={rng.uniform(*pace):.3f}",
                    "--setf", f"int_f0_target_mean={PITCH[speaker] * rng.uniform(0.88, 1.12):.1f}",
                    "-t", text, "-o", out], check=True)
