#!/usr/bin/env python3
"""Packs one target's binary as a release archive, the way action.yml unpacks it.

    release_archive.py --target TRIPLE --binary PATH --version X.Y.Z --out DIR

writes DIR/proclint-vX.Y.Z-TRIPLE.tar.gz (a .zip for Windows targets) holding
one directory, proclint-vX.Y.Z-TRIPLE/, with the executable (`proclint`, or
`proclint.exe`, mode 0755) and README.md, and prints the archive's path.
.github/workflows/release.yml runs it for every target on its build runner
(Python is on every GitHub runner; no tar or zip tool is assumed), and
tests/ci_files.rs uses it to test the action's download step.
"""

import argparse
import io
import os
import pathlib
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--binary", required=True, type=pathlib.Path)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()

    stem = f"proclint-v{args.version}-{args.target}"
    windows = "-windows-" in args.target
    exe = "proclint.exe" if windows else "proclint"
    members = [
        (f"{stem}/{exe}", args.binary.read_bytes(), 0o755),
        (f"{stem}/README.md", (ROOT / "README.md").read_bytes(), 0o644),
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    if windows:
        path = args.out / f"{stem}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data, mode in members:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    else:
        path = args.out / f"{stem}.tar.gz"
        with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as t:
            for name, data, mode in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = mode
                info.mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
                t.addfile(info, io.BytesIO(data))
    print(path)


if __name__ == "__main__":
    main()
