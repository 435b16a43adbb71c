"""Linear algebra on stacks of matrices, with NumPy's and SciPy's names and semantics.

``arignote.tensor.linalg`` (also ``pt.linalg``) gathers the ``numpy.linalg`` and
``scipy.linalg`` functions: inverses and determinants, linear systems, decompositions, least
squares, norms and matrix functions. Each family lives in its own module. These names live
only in this namespace (``pt.linalg.norm``), not in ``arignote.tensor`` itself, as in NumPy.
"""

# PyTensor's names for the same things.
from arignote.tensor.derived import matrix_dot, tensorinv, tensorsolve
from arignote.tensor.linalg.basic import trace
from arignote.tensor.linalg.decompositions import *
from arignote.tensor.linalg.generalized_eigen import *
from arignote.tensor.linalg.inverse import *
from arignote.tensor.linalg.inverse import SlogDet as SLogDet
from arignote.tensor.linalg.inverse import inv as matrix_inverse
from arignote.tensor.linalg.least_squares import *
from arignote.tensor.linalg.lu import *
from arignote.tensor.linalg.matrix_equations import *
from arignote.tensor.linalg.misc import *
from arignote.tensor.linalg.norms import *
from arignote.tensor.linalg.pivoted_qr import *
from arignote.tensor.linalg.riccati import *
from arignote.tensor.linalg.schur import *
from arignote.tensor.linalg.solve import *
from arignote.tensor.linalg.solve import ChoSolve as CholeskySolve
from arignote.tensor.linalg.solve import SolveBase
from arignote.tensor.linalg.tridiagonal import *
from arignote.tensor.products import matmul, outer, tensordot
