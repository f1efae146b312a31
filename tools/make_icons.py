"""Draw the app's PNG icons (192 and 512 px) with the standard library only (zlib, struct).

Run: `python tools/make_icons.py`. The design matches static/icons/icon.svg: a D20-ish
hexagon on the accent colour, full bleed so that "maskable" crops keep it whole.
"""

import math
import struct
import zlib
from pathlib import Path

ACCENT = (0x7A, 0x2E, 0x1D)
LIGHT = (0xF7, 0xF5, 0xF0)
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"


def _inside_hexagon(x: float, y: float, radius: float) -> bool:
    # A regular hexagon with a vertex at the top, centred on the origin.
    for k in range(6):
        angle = math.pi / 3 * k
        nx, ny = math.sin(angle + math.pi / 6), -math.cos(angle + math.pi / 6)
        if x * nx + y * ny > radius * math.cos(math.pi / 6):
            return False
    return True


def _in_triangle(x: float, y: float, radius: float) -> bool:
    # An upward equilateral triangle of circumradius `radius`, centred on the origin.
    if y > radius / 2:
        return False
    return abs(x) <= (y + radius) / math.sqrt(3)


def pixel(x: int, y: int, size: int) -> tuple[int, int, int]:
    cx = cy = size / 2
    dx, dy = x + 0.5 - cx, y + 0.5 - cy
    outer = size * 0.36
    if _inside_hexagon(dx, dy, outer) and not _inside_hexagon(dx, dy, outer * 0.8):
        return LIGHT
    # The front face of a twenty-sided die: a triangle outline inside the hexagon.
    if _in_triangle(dx, dy, outer * 0.62) and not _in_triangle(dx, dy, outer * 0.62 - size / 24):
        return LIGHT
    return ACCENT


def png(size: int) -> bytes:
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y, size)) for x in range(size)) for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        (OUT / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
