"""Writes the Parquet fixtures of ParquetListReaderTests with pyarrow (PyPI; the tests' venv has it):
python3 Tests/Fixtures/parquet/make_fixtures.py, from the repository's root."""
import datetime
import decimal
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

os.chdir(os.path.dirname(os.path.abspath(__file__)))
n = 30
urls = [f'http://127.0.0.1:9/p/{i}.jpg' for i in range(n)]
urls[4] = None
urls[9] = ''
table = pa.table({
    'url': pa.array(urls, pa.string()),
    'caption': pa.array([f'caption é {i}' if i % 5 else None for i in range(n)], pa.string()),
    'n': pa.array([i * 1000000007 if i % 4 else None for i in range(n)], pa.int64()),
    'i32': pa.array([-i for i in range(n)], pa.int32()),
    'f32': pa.array([i / 4 for i in range(n)], pa.float32()),
    'f64': pa.array([i * 1.5e300 if i % 3 else -0.125 for i in range(n)], pa.float64()),
    'b': pa.array([None if i % 7 == 0 else i % 2 == 0 for i in range(n)], pa.bool_()),
    'u64': pa.array([2**64 - 1 - i for i in range(n)], pa.uint64()),
    'day': pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in range(n)], pa.date32()),
    'tags': pa.array([[f't{i}'] for i in range(n)], pa.list_(pa.string())),
    'price': pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(9, 2)),
})
# Row groups of 7 rows and pages of about 128 bytes: several of each in every file.
common = dict(row_group_size=7, data_page_size=128, write_batch_size=4)
pq.write_table(table, 'uncompressed.parquet', compression='none', **common)
pq.write_table(table, 'snappy.parquet', compression='snappy', **common)
pq.write_table(table, 'gzip.parquet', compression='gzip', **common)
pq.write_table(table, 'zstd.parquet', compression='zstd', **common)
pq.write_table(table, 'v2-snappy.parquet', compression='snappy', data_page_version='2.0', **common)
pq.write_table(table, 'plain-zstd.parquet', compression='zstd', use_dictionary=False, **common)
pq.write_table(table, 'brotli.parquet', compression='brotli', **common)
# LZ4_RAW, as pyarrow writes 'lz4' too (Hadoop's framed LZ4 is tested on frames made in ParquetCodecTests).
pq.write_table(table, 'lz4-raw.parquet', compression='lz4_raw', **common)
# Every flat column in a delta or byte-stream-split encoding, in v1 and v2 pages.
flat = table.select(['url', 'caption', 'n', 'i32', 'f32', 'f64', 'b', 'u64', 'day'])
encodings = {'url': 'DELTA_BYTE_ARRAY', 'caption': 'DELTA_LENGTH_BYTE_ARRAY', 'n': 'DELTA_BINARY_PACKED',
             'i32': 'DELTA_BINARY_PACKED', 'f32': 'BYTE_STREAM_SPLIT', 'f64': 'BYTE_STREAM_SPLIT', 'b': 'RLE',
             'u64': 'DELTA_BINARY_PACKED', 'day': 'DELTA_BINARY_PACKED'}
pq.write_table(flat, 'delta.parquet', compression='none', use_dictionary=False, column_encoding=encodings, **common)
pq.write_table(flat, 'delta-v2.parquet', compression='zstd', use_dictionary=False, column_encoding=encodings,
               data_page_version='2.0', **common)
rows = table.select(['url', 'caption', 'n', 'i32', 'f32', 'f64', 'b', 'u64', 'day', 'tags']).to_pylist()
for row in rows:
    row['day'] = (row['day'] - datetime.date(1970, 1, 1)).days  # as Parquet stores a date: days since 1970
json.dump(rows, open('expected.json', 'w'), ensure_ascii=False, indent=0)

# One page of 3,000 rows (beyond a batch of the reader's 1,024): levels bit-packed (every third URL null, every
# other n null) and dictionary indices bit-packed (7 URLs).
rows = 3000
long_table = pa.table({
    'url': pa.array([None if i % 3 == 2 else f'http://127.0.0.1:9/l/{i % 7}.jpg' for i in range(rows)], pa.string()),
    'n': pa.array([i if i % 2 else None for i in range(rows)], pa.int64()),
})
pq.write_table(long_table, 'long-page.parquet', compression='snappy', data_page_size=1 << 20, write_batch_size=rows)

# The same length of page in the delta encodings: many blocks and miniblocks of deltas of every size and sign, strings
# sharing prefixes of every length (ParquetListReaderTests computes the same values).
long_delta = pa.table({
    'url': pa.array([None if i % 5 == 4 else f'http://127.0.0.1:9/d/{i * i % 1000}/{"x" * (i % 13)}.jpg'
                     for i in range(rows)], pa.string()),
    'n': pa.array([i * i * 1000003 - (i % 3) * 5 * 10**17 for i in range(rows)], pa.int64()),
    'caption': pa.array(['c' * (i % 17) + str(i) for i in range(rows)], pa.string()),
})
pq.write_table(long_delta, 'long-delta.parquet', compression='none', use_dictionary=False, data_page_size=1 << 20,
               write_batch_size=rows, column_encoding={'url': 'DELTA_BYTE_ARRAY', 'n': 'DELTA_BINARY_PACKED',
                                                       'caption': 'DELTA_LENGTH_BYTE_ARRAY'})

# Floating-point values JSON has no number for.
special = pa.table({
    'url': pa.array([f'http://127.0.0.1:9/s/{i}.jpg' for i in range(4)], pa.string()),
    'x': pa.array([float('nan'), float('inf'), float('-inf'), 1.5], pa.float64()),
    'y': pa.array([float('nan'), float('inf'), float('-inf'), 1.5], pa.float32()),
})
pq.write_table(special, 'nonfinite.parquet', compression='snappy')

# Nested columns, lists of one kind of value in the spec's three-level form: nulls and empty lists at every depth,
# null entries, DataComp's face boxes (a list of lists of doubles), three levels deep; a struct and a map, which
# are refused. In v1 and v2 pages, row groups of 7 rows and small pages; `nested-expected.json` holds the lists.
count = 40
nested = pa.table({
    'url': pa.array([f'http://127.0.0.1:9/n/{i}.jpg' for i in range(count)], pa.string()),
    'tags': pa.array([None if i % 6 == 5 else [] if i % 6 == 4 else [f't{i}', None, f'u{i}'][: 1 + i % 3]
                      for i in range(count)], pa.list_(pa.string())),
    'face_bboxes': pa.array([None if i % 9 == 8 else [[j + 0.25, j + 0.5, i + 0.75, 1.125] for j in range(i % 4)]
                             + ([None] if i % 7 == 6 else []) + ([[]] if i % 5 == 3 else [])
                             for i in range(count)], pa.list_(pa.list_(pa.float64()))),
    'ids': pa.array([list(range(i, i + i % 5)) for i in range(count)], pa.list_(pa.field('id', pa.int64(), nullable=False))),
    'deep': pa.array([[[[i, i + 1], []], [[None]]] if i % 2 else [[[]]] for i in range(count)],
                     pa.list_(pa.list_(pa.list_(pa.int32())))),
    'flags': pa.array([[i % 2 == 0, None, True][: i % 4] for i in range(count)], pa.list_(pa.bool_())),
    'meta': pa.array([{'k': i} for i in range(count)], pa.struct([('k', pa.int64())])),
    'attrs': pa.array([[('a', str(i))] for i in range(count)], pa.map_(pa.string(), pa.string())),
})
lists = ['tags', 'face_bboxes', 'ids', 'deep', 'flags']
pq.write_table(nested, 'nested.parquet', compression='snappy', **common)
pq.write_table(nested, 'nested-v2.parquet', compression='zstd', data_page_version='2.0', **common)
json.dump(nested.select(lists).to_pylist(), open('nested-expected.json', 'w'), indent=0)

# One page of 3,000 rows of lists (about 6,000 levels): rows that a batch of the reader's 1,024 levels cuts.
long_nested = pa.table({
    'url': pa.array([f'http://127.0.0.1:9/ln/{i}.jpg' for i in range(rows)], pa.string()),
    'tags': pa.array([[f't{i}-{j}' for j in range(i % 5)] for i in range(rows)], pa.list_(pa.string())),
})
pq.write_table(long_nested, 'long-nested.parquet', compression='snappy', data_page_size=1 << 20, write_batch_size=rows)

# -0.0 beside 0.0 in a double, a float and a list of doubles (no dictionary, which may take them for one value):
# written 0, as JSON Lines' -0 is.
negative_zero = pa.table({
    'url': pa.array([f'http://127.0.0.1:9/z/{i}.jpg' for i in range(3)], pa.string()),
    'x': pa.array([-0.0, 0.0, -2.5], pa.float64()),
    'y': pa.array([-0.0, 0.0, -2.5], pa.float32()),
    'z': pa.array([[-0.0, 1.0], [0.0], []], pa.list_(pa.float64())),
})
pq.write_table(negative_zero, 'negative-zero.parquet', compression='snappy', use_dictionary=False)
