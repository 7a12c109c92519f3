"""The workers' batches and the tabular writers' header: their home is ``read.formats.output``."""

from ..read.formats.output import Header, TableWriter, load_batch

__all__ = ["load_batch", "Header", "TableWriter"]
