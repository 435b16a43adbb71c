"""``arignote.sandbox``: Theano's ``sandbox`` paths that programs import (``rng_mrg``)."""

from arignote.sandbox import rng_mrg
