"""The runner's part columns as pyarrow tables: the reference its Parquet writer is checked
against (pyarrow writing the same columns itself)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.store.parquet import Column
from sim.store.schema import arrow_schema


def to_arrow(table: str, columns: list[Column]) -> pa.Table:
    """The same columns as an Arrow table of the table's schema: pyarrow's own reading of
    them, for checking the part writer against."""
    schema = arrow_schema(table)
    arrays = []
    for column, field in zip(columns, schema, strict=True):
        assert column.name == field.name, "the columns are in the table schema's order"
        values = np.repeat(column.values, column.repeat)
        mask = None if column.valid is None else np.repeat(~column.valid, column.repeat)
        if column.bits == 0:
            index = field.type.index_type
            codes = values.astype(index.to_pandas_dtype())
            arrays.append(
                pa.DictionaryArray.from_arrays(
                    pa.array(codes, type=index, mask=mask),
                    pa.array(column.dictionary, pa.string()),
                    ordered=field.type.ordered,
                )
            )
        else:
            arrays.append(pa.array(values, type=field.type, mask=mask))
    return pa.Table.from_arrays(arrays, schema=schema)
