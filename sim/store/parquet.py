"""A small Parquet writer for the run's part files: columns straight from NumPy arrays, one
row group, one page per column, zstd (level 1) where it saves bytes, each column's null
count, min and max in the footer.

Why not pyarrow's writer: with the same encodings it took about twice this writer's time
per chunk, several percent more CPU a game end to end (benchmarks/parts.py measures both;
docs/performance.md). Part columns are dictionary codes and small unsigned integers, which
this writer encodes with the format's own compact encodings (RLE runs, bit-packing, deltas
for game numbers), then zstd over the pages where that saves bytes. The files are standard
Parquet (PLAIN, RLE, RLE_DICTIONARY and DELTA_BINARY_PACKED pages)
carrying the Arrow schema, so pyarrow, polars, pandas and DuckDB read them with the usual
types, enums included. Field numbers below follow parquet.thrift.
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from weakref import WeakKeyDictionary

import numba
import numpy as np
import zstandard

# parquet.thrift enums
BOOLEAN, INT32, INT64, BYTE_ARRAY = 0, 1, 2, 6
OPTIONAL = 1
UTF8 = 0
UINT = {8: 11, 16: 12, 32: 13, 64: 14}  # ConvertedType UINT_8 ... UINT_64
PLAIN, RLE, DELTA_BINARY_PACKED, RLE_DICTIONARY = 0, 3, 5, 8
DATA_PAGE, DICTIONARY_PAGE = 0, 2
UNCOMPRESSED, ZSTD = 0, 6  # CompressionCodec
ZSTD_LEVEL = 1  # level 3 made a games part no smaller, and took longer
MAGIC = b"PAR1"


@dataclass(frozen=True, eq=False)
class Column:
    """One column of a part. bits 0: `values` are codes into `dictionary` (text); bits 1:
    booleans; 8, 16, 32 or 64: unsigned integers of that width. Null where `valid` is False.

    Each value stands for `repeat` consecutive rows (a game's number on each of its cards
    rows), written as runs without repeating it in memory; `valid` is per value.

    Columns are compared by identity: one Column object written into several parts (the
    key columns every full chunk of a cell shares) is encoded once, so its arrays must not
    change after it is first written."""

    name: str
    values: np.ndarray
    bits: int = 0
    dictionary: tuple[str, ...] = ()
    valid: np.ndarray | None = None
    ascending: bool = False  # unique ascending integers (game numbers): stored as deltas
    repeat: int = 1

    @property
    def rows(self) -> int:
        return len(self.values) * self.repeat


def write(path: Path, columns: list[Column], arrow_schema: bytes) -> list[bytes]:
    """Write the columns (all of one length) as a Parquet file at path, with the serialized
    Arrow schema that tells readers the exact types (ARROW:schema, as pyarrow writes it).
    Returns the blocks written, so the caller can checksum exactly those bytes."""
    rows = columns[0].rows
    lengths = {c.rows for c in columns}
    lengths |= {len(c.valid) * c.repeat for c in columns if c.valid is not None}
    if lengths != {rows}:
        raise ValueError(f"columns of one part must have one length; the first has {rows}")
    blocks, chunks, offset = [MAGIC], [], len(MAGIC)
    for column in columns:
        pages, meta = _column_chunk(column, offset)
        blocks += pages
        chunks.append(meta)
        offset += meta["size"]
    footer = _footer(columns, chunks, rows, arrow_schema)
    blocks += [footer, struct.pack("<i", len(footer)), MAGIC]
    with open(path, "wb") as f:
        f.writelines(blocks)
    return blocks


# --- pages -------------------------------------------------------------------------------


def _column_chunk(column: Column, offset: int) -> tuple[list[bytes], dict]:
    """The column's pages (a dictionary page when it has one, then its data page) and
    what the footer says about them."""
    dictionary_pages, data_pages, encoding, codec, raw_size, statistics = _pages(column)
    pages = [*dictionary_pages, *data_pages]
    meta = {
        "offset": offset,
        "dictionary_offset": offset if dictionary_pages else None,
        "data_offset": offset + sum(len(p) for p in dictionary_pages),
        "size": sum(len(p) for p in pages),
        "raw_size": raw_size,
        "codec": codec,
        "encodings": sorted({RLE, encoding} | ({PLAIN} if dictionary_pages else set())),
        "values": column.rows,
        "statistics": statistics,
    }
    return pages, meta


_ENCODED: WeakKeyDictionary[Column, tuple] = WeakKeyDictionary()


def _pages(column: Column) -> tuple[list[bytes], list[bytes], int, int, int, list | None]:
    """(dictionary page, or nothing; data page), each as header and body; data encoding;
    codec; the pages' size uncompressed; the footer's statistics of the values."""
    if column in _ENCODED:
        return _ENCODED[column]
    rows = column.rows
    if column.valid is None:  # definition levels: one run of "present"
        present, levels = column.values, _uvarint(rows << 1) + b"\x01"
    else:
        present = _present(column.values, column.valid)
        levels = _hybrid(column.valid.view(np.uint8), 1, repeat=column.repeat)
    dictionary, data, encoding = _encode(column, present)
    body = b"".join([struct.pack("<i", len(levels)), levels, *data])
    values, count = dictionary if dictionary is not None else (None, 0)
    codec, (values_stored, body_stored) = _compressed(values, body)
    data_header = _struct(
        [
            (1, I32, DATA_PAGE),
            (2, I32, len(body)),
            (3, I32, len(body_stored)),
            (5, STRUCT, [(1, I32, rows), (2, I32, encoding), (3, I32, RLE), (4, I32, RLE)]),
        ]
    )
    raw_size = len(data_header) + len(body)
    dictionary_pages = []
    if values is not None:
        dictionary_header = _dictionary_header(len(values), len(values_stored), count)
        dictionary_pages = [dictionary_header, values_stored]
        raw_size += len(dictionary_header) + len(values)
    statistics = _statistics(column, present)
    pages = dictionary_pages, [data_header, body_stored], encoding, codec, raw_size, statistics
    _ENCODED[column] = pages
    return pages


def _compressed(values: bytes | None, body: bytes) -> tuple[int, tuple]:
    """(codec, (dictionary page body, data page body) as stored): zstd when it saves bytes
    (one codec for a column's pages), else as they are (a constant column's few bytes)."""
    compressor = getattr(_SCRATCH, "zstd", None)
    if compressor is None:  # a compressor is not to be shared between threads
        compressor = _SCRATCH.zstd = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    pages = (values, body) if values is not None else (body,)
    stored = [compressor.compress(page) for page in pages]
    if sum(map(len, stored)) >= sum(map(len, pages)):
        return UNCOMPRESSED, (values, body)
    return ZSTD, (stored[0], stored[1]) if values is not None else (None, stored[0])


def _dictionary_header(size: int, stored: int, count: int) -> bytes:
    return _struct(
        [
            (1, I32, DICTIONARY_PAGE),
            (2, I32, size),
            (3, I32, stored),
            (7, STRUCT, [(1, I32, count), (2, I32, PLAIN)]),
        ]
    )


def _encode(column: Column, present: np.ndarray):
    """(dictionary page body and its count, or None; data bytes; data encoding)."""
    repeat = column.repeat
    if column.bits == 0:
        words = [text.encode() for text in column.dictionary]
        body = b"".join(struct.pack("<i", len(w)) + w for w in words)
        return (body, len(words)), _codes(present, len(words) - 1, 0, repeat), RLE_DICTIONARY
    plain = "<i8" if column.bits == 64 else "<i4"
    unsigned = np.uint64 if column.bits == 64 else np.uint32
    if 1 < column.bits <= 32 and not column.ascending and len(present) > 1:
        low, high = int(present.min()), int(present.max())
        if high - low < len(present) * repeat // 2:  # few distinct values: a dictionary
            span = np.arange(low, high + 1, dtype=unsigned).view(plain).tobytes()
            codes = _codes(present, high - low, low, repeat)
            return (span, high - low + 1), codes, RLE_DICTIONARY
    if repeat > 1:  # the encodings below store every row's value
        present = np.repeat(present, repeat)
    if column.bits == 1:
        return None, [np.packbits(present, bitorder="little").tobytes()], PLAIN
    if column.ascending and column.bits <= 32 and len(present) > 1:
        out = _scratch(len(present) * 5 + 64)
        return None, [out[: _delta_into(present, out)].tobytes()], DELTA_BINARY_PACKED
    return None, [present.astype(unsigned).view(plain).tobytes()], PLAIN


def _codes(values: np.ndarray, largest: int, low: int = 0, repeat: int = 1) -> list[bytes]:
    """Dictionary codes (values - low, at most largest) as a data page's RLE_DICTIONARY."""
    width = max(1, int(largest).bit_length())
    return [bytes([width]), _hybrid(values, width, low, repeat)]


def _hybrid(values: np.ndarray, width: int, low: int = 0, repeat: int = 1) -> bytes:
    """The RLE / bit-packing hybrid of values - low, each value `repeat` times."""
    if repeat > 1:  # a run per value at most: a header of up to 10 bytes, the value's 8
        out = _scratch(len(values) * 18 + 16)
        return out[: _runs_into(values, np.uint64(low), width, repeat, out)].tobytes()
    out = _scratch(len(values) * 5 + 16)
    return out[: _hybrid_into(values, np.uint64(low), width, out)].tobytes()


_SCRATCH = threading.local()


def _scratch(size: int) -> np.ndarray:
    """This thread's byte buffer of at least size, reused by every column it encodes (a
    fresh one costs a page fault every 4 KiB of the encoding)."""
    buffer = getattr(_SCRATCH, "buffer", None)
    if buffer is None or len(buffer) < size:
        buffer = _SCRATCH.buffer = np.empty(size, dtype=np.uint8)
    return buffer


@numba.njit(cache=True)
def _present(values, valid):
    """values[valid] (numpy's boolean indexing takes four times as long)."""
    out = np.empty(len(values), dtype=values.dtype)
    count = 0
    for i in range(len(values)):
        out[count] = values[i]
        count += valid[i]
    return out[:count]


@numba.njit(cache=True)
def _same8(values, i):
    if i + 8 > len(values):
        return False
    for k in range(i + 1, i + 8):  # noqa: SIM110 - numba compiles loops, not all(generator)
        if values[k] != values[i]:
            return False
    return True


@numba.njit(cache=True)
def _varint(out, pos, n):
    while n >= 0x80:
        out[pos] = (n & 0x7F) | 0x80
        pos += 1
        n >>= 7
    out[pos] = n
    return pos + 1


@numba.njit(cache=True)
def _hybrid_into(values, low, width, out):
    """Parquet's RLE / bit-packing hybrid of values - low (width bits each) into out; returns
    the length. Eight or more equal values in a row become one RLE run, the rest groups of
    eight bit-packed values (the last group padded with zeros)."""
    if width <= 8:
        return _hybrid8_into(values, low, width, out)
    n, pos, i = len(values), 0, 0
    value_bytes = (width + 7) // 8
    while i < n:
        if _same8(values, i):
            value, j = values[i], i + 8
            while j < n and values[j] == value:
                j += 1
            pos = _varint(out, pos, (j - i) << 1)
            code = np.uint64(value) - low
            for b in range(value_bytes):
                out[pos] = (code >> np.uint64(8 * b)) & np.uint64(0xFF)
                pos += 1
            i = j
            continue
        start = i
        while i < n and not _same8(values, i):
            i += 8
        groups = (i - start) // 8
        pos = _varint(out, pos, (groups << 1) | 1)
        acc, bits = np.uint64(0), 0
        for k in range(start, start + 8 * groups):
            value = np.uint64(values[k]) - low if k < n else np.uint64(0)
            pos, acc, bits = _put_bits(out, pos, acc, bits, value, width)
    return pos


@numba.njit(cache=True)
def _runs_into(values, low, width, repeat, out):
    """The hybrid encoding of each of values - low repeated `repeat` times: one RLE run per
    stretch of equal values; returns the length."""
    n, pos, i = len(values), 0, 0
    value_bytes = (width + 7) // 8
    while i < n:
        j = i + 1
        while j < n and values[j] == values[i]:
            j += 1
        pos = _varint(out, pos, ((j - i) * repeat) << 1)
        code = np.uint64(values[i]) - low
        for b in range(value_bytes):
            out[pos + b] = (code >> np.uint64(8 * b)) & np.uint64(0xFF)
        pos, i = pos + value_bytes, j
    return pos


@numba.njit(cache=True)
def _hybrid8_into(values, low, width, out):
    """_hybrid_into for width <= 8, in two simple passes: every group of eight codes packed
    into one word, then each word either joins an RLE run (eight equal codes, the word a
    multiple of `spread`) or is copied as `width` bit-packed bytes. Bit-packed runs stop at
    63 groups, so their header is the one byte written before them."""
    n = len(values)
    full, groups = n // 8, (n + 7) // 8
    words = np.zeros(groups, dtype=np.uint64)
    for g in range(full):  # eight at a time, which the compiler unrolls
        word = np.uint64(0)
        for k in range(8):
            word |= (np.uint64(values[8 * g + k]) - low) << np.uint64(k * width)
        words[g] = word
    for k in range(8 * full, n):  # the last group, zeros past the end
        words[full] |= (np.uint64(values[k]) - low) << np.uint64((k - 8 * full) * width)
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    spread = np.uint64(0)
    for k in range(8):
        spread |= np.uint64(1) << np.uint64(k * width)
    pos, g = 0, 0
    while g < groups:
        if g < full and words[g] == (words[g] & mask) * spread:  # eight equal codes
            h = g + 1
            while h < full and words[h] == words[g]:
                h += 1
            pos = _varint(out, pos, (8 * (h - g)) << 1)
            out[pos] = words[g] & mask
            pos, g = pos + 1, h
            continue
        header, count = pos, 0
        pos += 1
        while g < groups and count < 63:
            word = words[g]
            if g < full and word == (word & mask) * spread:
                break
            for b in range(width):
                out[pos + b] = (word >> np.uint64(8 * b)) & np.uint64(0xFF)
            pos, count, g = pos + width, count + 1, g + 1
        out[header] = (count << 1) | 1
    return pos


@numba.njit(cache=True, inline="always")  # a call per value would cost 3x the encoding
def _put_bits(out, pos, acc, bits, value, width):
    """Append value's low `width` bits to a little-endian bit stream whose last `bits` bits
    (not yet a whole byte) wait in acc; returns the new (pos, acc, bits)."""
    acc |= np.uint64(value) << np.uint64(bits)
    bits += width
    while bits >= 8:
        out[pos] = acc & np.uint64(0xFF)
        pos += 1
        acc >>= np.uint64(8)
        bits -= 8
    return pos, acc, bits


@numba.njit(cache=True)
def _zigzag64(n):
    return (n << 1) ^ (n >> 63)


@numba.njit(cache=True)
def _delta_into(values, out):
    """DELTA_BINARY_PACKED of values (at least two) into out; returns the length. Blocks of
    128 deltas, each stored less the block's smallest in four bit-packed miniblocks of 32."""
    n = len(values)
    pos = _varint(out, 0, 128)
    pos = _varint(out, pos, 4)
    pos = _varint(out, pos, n)
    pos = _varint(out, pos, _zigzag64(np.int64(values[0])))
    deltas = np.zeros(128, dtype=np.int64)
    for block in range(1, n, 128):
        count = min(128, n - block)
        for k in range(count):
            deltas[k] = np.int64(values[block + k]) - np.int64(values[block + k - 1])
        smallest = deltas[:count].min()
        pos = _varint(out, pos, _zigzag64(smallest))
        widths, pos = pos, pos + 4
        for m in range(4):
            out[widths + m] = 0
            if 32 * m >= count:
                continue
            largest = deltas[32 * m : min(32 * m + 32, count)].max() - smallest
            width = 0
            while largest >> width:
                width += 1
            out[widths + m] = width
            if width == 0:  # every delta equals the smallest (game numbers: all 1)
                continue
            acc, bits = np.uint64(0), 0
            for k in range(32 * m, 32 * m + 32):
                delta = deltas[k] - smallest if k < count else 0
                pos, acc, bits = _put_bits(out, pos, acc, bits, delta, width)
    return pos


# --- footer: Thrift compact protocol -----------------------------------------------------

BOOL, I8, I16, I32, I64, BINARY, LIST, STRUCT = 1, 3, 4, 5, 6, 8, 9, 12  # compact type codes


def _footer(columns: list[Column], chunks: list[dict], rows: int, arrow_schema: bytes) -> bytes:
    schema = [[(3, I32, 0), (4, BINARY, "schema"), (5, I32, len(columns))]]
    schema += [_schema_element(c.name, c.bits) for c in columns]
    chunk_structs = [_chunk_struct(c, meta) for c, meta in zip(columns, chunks, strict=True)]
    total = sum(meta["size"] for meta in chunks)
    row_group = [
        (1, LIST, (STRUCT, chunk_structs)),
        (2, I64, sum(meta["raw_size"] for meta in chunks)),
        (3, I64, rows),
        (5, I64, chunks[0]["offset"]),
        (6, I64, total),
        (7, I16, 0),  # ordinal
    ]
    return _struct(
        [
            (1, I32, 2),
            (2, LIST, (STRUCT, schema)),
            (3, I64, rows),
            (4, LIST, (STRUCT, [row_group])),
            (5, LIST, (STRUCT, [[(1, BINARY, b"ARROW:schema"), (2, BINARY, arrow_schema)]])),
            (6, BINARY, "sim part writer"),
            (7, LIST, (STRUCT, [[(1, STRUCT, [])]] * len(columns))),  # TypeDefinedOrder
        ]
    )


@cache
def _schema_element(name: str, bits: int) -> bytes:
    """A column's SchemaElement, encoded (the same in every part of a table)."""
    if bits == 0:
        string = [(1, STRUCT, [])]
        fields = [(1, I32, BYTE_ARRAY), (3, I32, OPTIONAL), (4, BINARY, name), (6, I32, UTF8),
                  (10, STRUCT, string)]  # fmt: skip
    elif bits == 1:
        fields = [(1, I32, BOOLEAN), (3, I32, OPTIONAL), (4, BINARY, name)]
    else:
        integer = [(10, STRUCT, [(1, I8, bits), (2, BOOL, False)])]
        kind = INT64 if bits == 64 else INT32
        fields = [(1, I32, kind), (3, I32, OPTIONAL), (4, BINARY, name),
                  (6, I32, UINT[bits]), (10, STRUCT, integer)]  # fmt: skip
    return _struct(fields)


def _chunk_struct(column: Column, meta: dict) -> list:
    kind = (
        BYTE_ARRAY
        if column.bits == 0
        else BOOLEAN
        if column.bits == 1
        else INT64
        if column.bits == 64
        else INT32
    )
    metadata = [
        (1, I32, kind),
        (2, LIST, (I32, meta["encodings"])),
        (3, LIST, (BINARY, [column.name])),
        (4, I32, meta["codec"]),
        (5, I64, meta["values"]),
        (6, I64, meta["raw_size"]),
        (7, I64, meta["size"]),
        (9, I64, meta["data_offset"]),
        (11, I64, meta["dictionary_offset"]),
        (12, STRUCT, meta["statistics"]),
    ]
    return [(2, I64, meta["offset"]), (3, STRUCT, metadata)]


def _statistics(column: Column, present: np.ndarray) -> list | None:
    """The chunk's null count, min and max (PLAIN bytes of the physical type; unsigned
    order, as the footer's column orders say), so readers can skip parts by value;
    present holds the column's non-null values, as the pages were encoded from."""
    if column.bits == 1:
        return None
    nulls = column.rows - len(present) * column.repeat
    if not len(present):
        return [(3, I64, nulls)]
    if column.bits == 0:
        used = _used(present, len(column.dictionary))
        words = sorted(column.dictionary[i].encode() for i in np.flatnonzero(used))
        low, high = words[0], words[-1]
    else:
        width = 8 if column.bits == 64 else 4
        low, high = (int(v).to_bytes(width, "little") for v in (present.min(), present.max()))
    return [(3, I64, nulls), (5, BINARY, high), (6, BINARY, low)]


@numba.njit(cache=True)
def _used(codes, count):
    """Which of count dictionary codes occur (np.bincount took ten times as long)."""
    used = np.zeros(count, dtype=np.bool_)
    for code in codes:
        used[code] = True
    return used


def _struct(fields: list) -> bytes:
    """A Thrift compact-protocol struct of (field id, type, value) in increasing field id;
    None values are left out."""
    out, last = bytearray(), 0
    for field_id, kind, value in fields:
        if value is None:
            continue
        wire = (1 if value else 2) if kind == BOOL else kind
        if 0 < field_id - last <= 15:
            out.append((field_id - last) << 4 | wire)
        else:
            out.append(wire)
            out += _uvarint(_zigzag(field_id))
        last = field_id
        if kind != BOOL:
            out += _value(kind, value)
    out.append(0)
    return bytes(out)


def _value(kind: int, value) -> bytes:
    if kind == I8:
        return bytes([value & 0xFF])
    if kind in (I16, I32, I64):  # zigzag varints
        return _uvarint(_zigzag(value))
    if kind == BINARY:
        data = value.encode() if isinstance(value, str) else value
        return _uvarint(len(data)) + data
    if kind == STRUCT:  # its fields, or already encoded
        return value if isinstance(value, bytes) else _struct(value)
    element, items = value  # LIST
    size = len(items)
    header = bytes([size << 4 | element]) if size < 15 else bytes([0xF0 | element]) + _uvarint(size)
    return header + b"".join(_value(element, item) for item in items)


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
