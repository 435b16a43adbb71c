"""The one list of PyTensor public names that arignote deliberately lacks, each with its reason.

``tests/test_name_coverage.py`` requires every name of ``tests/data/pytensor_names.json`` (made
by ``tools/list_pytensor_names.py``) to exist at the same path in arignote (``pytensor`` ->
``arignote``) or to be listed here; a name listed here that arignote now has fails the test,
so the list only shrinks.
"""

IFELSE = (
    "a helper or rewrite of PyTensor's ifelse, raise_op or builders module; arignote's rewrites "
    "of these ops are registered under their own names (see arignote.ifelse, arignote.raise_op)"
)

C_BACKEND = (
    "PyTensor's C backend (C linkers, C-code registration, C headers, compile locks): arignote "
    "has no C backend; its native backend is Numba"
)
OTHER_BACKEND = "PyTorch and MLX backends are out of scope (JAX covers accelerators)"
OPTDB = (
    "PyTensor's global rewrite database with float positions and its helpers; arignote's "
    "pipeline is listed in order in arignote.compile.pipeline and rewrites are registered by "
    "tag with arignote.graph.rewriting.register_rewrite"
)
OPT_CONSTANTS = (
    "PyTensor's RewriteDatabaseQuery constants for its optdb; arignote's modes name their "
    "pipeline (Mode(linker, 'fast_run'/'fast_compile'/...))"
)
PY_INTERNAL = (
    "a PyTensor implementation module or helper, not user API; arignote's internals are "
    "organised differently"
)
VECTORIZE_RULE = (
    "one of PyTensor's per-op vectorize_node registrations; arignote's vectorize_node "
    "(arignote.graph.replace) batches an op through its own rule or a Blockwise"
)
DEBUGMODE_INTERNAL = (
    "a DebugMode internal of PyTensor; arignote's DebugMode reports through its own error "
    "classes (BadThunkOutput, BadDestroyMap, BadViewMap, BadOptimization, BadInferShape)"
)
PROFILING_INTERNAL = (
    "PyTensor's global profile printers; arignote's ProfileStats prints itself (summary())"
)
FROZEN = (
    "PyTensor 3's frozen graphs (FrozenApply, FrozenFunctionGraph, NominalVariable: immutable "
    "and hash-consed, so that equal graphs are one object) are not built: arignote's graphs "
    "are mutable FunctionGraphs, and MergeOptimizer merges equal subgraphs when compiling"
)
ALIASING = (
    "PyTensor's aliasing helpers (the Supervisor feature, alias_root, view_tree_set, "
    "infer_reuse_pattern, AliasedMemoryError); arignote.compile.aliasing keeps the same memory "
    "contract with view_root, views_of, reuse_pattern, protect_inputs and insert_deepcopy"
)
PRINTER_CLASSES = (
    "a class of PyTensor's pprint printer registry; arignote's pp/pprint format by op "
    "through one table (arignote.printing), without per-op printer objects"
)
STACK_TRACE = (
    "PyTensor's check that rewrites keep stack traces: every variable arignote creates records "
    "where user code made it (tag.trace, including those a rewrite makes), so the check would "
    "always pass; rewrites copy the replaced variable's trace with copy_stack_trace, which the "
    "rewrite checklist test requires"
)
META = (
    "PyTensor's metaclass machinery (MetaType and MetaObject derive __eq__, __hash__ and __str__ "
    "from __props__; AssocList is its dict for unhashable keys): arignote's Op and Type get the "
    "same behaviour from the HasProps base class (arignote.graph.utils)"
)
SCALAR_CLASSES = (
    "PyTensor's scalar op classes seen through tensor.special; arignote's are "
    "arignote.scalar.special.XLogY and XLog1pY (the tensor functions are xlogy and xlog1py)"
)
CONNECTION = (
    "the connection pattern of a whole graph is arignote.autodiff.connection."
    "graph_connection_pattern(inputs, outputs): it follows the ops' own connection patterns, "
    "which the autodiff layer defines, above graph.op"
)
GRAPH_FUNCTION = (
    "arignote builds this as a graph of existing ops (pt.permute_row_elements: argsort and "
    "take_along_axis), so there is no op class nor a copy of the function in tensor.basic"
)
SUBTENSOR_INTERNAL = (
    "an indexing helper of PyTensor's Subtensor implementation (index canonicalisation, "
    "idx_list bookkeeping); arignote's indexing ops parse indices in arignote.tensor.index_spec "
    "(slice_length and static_slice_length compute a slice's length, numpy_index rebuilds an "
    "index from an op's idx_list and its inputs)"
)
LINALG_GRAPHS = (
    "an Op class that PyTensor wraps around a graph (OpFromGraph); arignote "
    "builds kron, tensorinv and tensorsolve as graphs of its own ops (Solve, MatrixInverse)"
)
SUBMODULE_LAYOUT = (
    "a PyTensor submodule whose public names arignote exposes elsewhere (or not at all: see "
    "the other entries)"
)


def _entries(reason: str, module: str, names: str) -> dict[tuple[str, str], str]:
    return {(module, name): reason for name in names.split()}


ABSENT: dict[tuple[str, str], str] = {}
for _reason, _module, _names in [
    (PY_INTERNAL, "pytensor", "assumptions configdefaults configparser npy_2_compat misc"),
    (PY_INTERNAL, "pytensor", "basic utils"),
    # compile
    (OPT_CONSTANTS, "pytensor.compile", "OPT_FAST_COMPILE OPT_FAST_RUN OPT_FAST_RUN_STABLE"),
    (OPT_CONSTANTS, "pytensor.compile", "OPT_MERGE OPT_NONE OPT_O2 OPT_O3 OPT_STABILIZE"),
    (OPT_CONSTANTS, "pytensor.compile", "OPT_UNSAFE"),
    (OPTDB, "pytensor.compile", "AddDestroyHandler AddFeatureOptimizer PrintCurrentFunctionGraph"),
    (OPTDB, "pytensor.compile", "local_useless optdb register_optimizer"),
    (C_BACKEND, "pytensor.compile", "C CVM compilelock register_deep_copy_op_c_code"),
    (C_BACKEND, "pytensor.compile", "register_view_op_c_code"),
    (OTHER_BACKEND, "pytensor.compile", "PYTORCH"),
    (ALIASING, "pytensor.compile", "AliasedMemoryError Supervisor add_supervisor_to_fgraph"),
    (ALIASING, "pytensor.compile", "alias_root infer_reuse_pattern view_tree_set"),
    (PY_INTERNAL, "pytensor.compile", "rebuild rebuild_collect_shared"),
    (IFELSE, "pytensor.compile.builders", "SymbolicOp construct_nominal_fgraph"),
    (IFELSE, "pytensor.compile.builders", "infer_shape"),
    (ALIASING, "pytensor.compile.executor", "AliasedMemoryError"),
    (OPT_CONSTANTS, "pytensor.compile.mode", "OPT_FAST_COMPILE OPT_FAST_RUN OPT_FAST_RUN_STABLE"),
    (OPT_CONSTANTS, "pytensor.compile.mode", "OPT_MERGE OPT_MINIMUM OPT_NONE OPT_O2 OPT_O3"),
    (OPT_CONSTANTS, "pytensor.compile.mode", "OPT_STABILIZE OPT_UNSAFE"),
    (OPTDB, "pytensor.compile.mode", "AddDestroyHandler AddFeatureOptimizer"),
    (OPTDB, "pytensor.compile.mode", "PrintCurrentFunctionGraph local_useless optdb"),
    (OPTDB, "pytensor.compile.mode", "register_optimizer"),
    (C_BACKEND, "pytensor.compile.mode", "C CVM"),
    (OTHER_BACKEND, "pytensor.compile.mode", "MLX PYTORCH"),
    (C_BACKEND, "pytensor.compile.ops", "register_deep_copy_op_c_code register_view_op_c_code"),
    (PY_INTERNAL, "pytensor.compile.ops", "TypeCastingOp load_back"),
    (PY_INTERNAL, "pytensor.compile.sharedvalue", "collect_new_shareds"),
    (PY_INTERNAL, "pytensor.gradient", "mode_not_slow"),
    # graph
    (FROZEN, "pytensor.graph.basic", "FrozenApply NominalVariable clone_node_and_cache"),
    (PY_INTERNAL, "pytensor.graph.basic", "as_string default_node_formatter op_as_string"),
    (DEBUGMODE_INTERNAL, "pytensor.graph.features", "BadOptimization"),
    (PY_INTERNAL, "pytensor.graph.features", "ReplacementDidNotRemoveError"),
    (PY_INTERNAL, "pytensor.graph.features", "register_feature_callback"),
    (FROZEN, "pytensor.graph.fg", "AbstractFunctionGraph FrozenFunctionGraph"),
    (PY_INTERNAL, "pytensor.graph.fg", "Output"),
    (PY_INTERNAL, "pytensor.graph.op", "ThunkType is_thunk_type"),
    (CONNECTION, "pytensor.graph.op", "io_connection_pattern"),
    (STACK_TRACE, "pytensor.graph.rewriting.basic", "CheckStackTraceFeature"),
    (STACK_TRACE, "pytensor.graph.rewriting.basic", "CheckStackTraceRewriter check_stack_trace"),
    (PY_INTERNAL, "pytensor.graph.rewriting.basic", "ChangeTracker DispatchingFeature"),
    (PY_INTERNAL, "pytensor.graph.rewriting.basic", "MergeFeature NodeProcessingGraphRewriter"),
    (PY_INTERNAL, "pytensor.graph.rewriting.basic", "merge_dict pre_constant_merge"),
    (PY_INTERNAL, "pytensor.graph.rewriting.basic", "pre_greedy_node_rewriter"),
    (OPTDB, "pytensor.graph.rewriting.db", "ProxyDB TopoDB"),
    (META, "pytensor.graph.utils", "AssocList MetaObject MetaType"),
    (PY_INTERNAL, "pytensor.graph.utils", "get_variable_trace_string simple_extract_stack"),
    # compile debugging
    (DEBUGMODE_INTERNAL, "pytensor.compile.debugmode", "DataDestroyed OutputGuard"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debugmode", "StochasticOrder check_eq"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debugmode", "data_destroyed output_guard"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debugmode", "str_diagnostic validity_hint"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debug.debugmode", "DataDestroyed OutputGuard"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debug.debugmode", "StochasticOrder check_eq"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debug.debugmode", "data_destroyed output_guard"),
    (DEBUGMODE_INTERNAL, "pytensor.compile.debug.debugmode", "str_diagnostic validity_hint"),
    (PROFILING_INTERNAL, "pytensor.compile.profiling", "extended_open print_global_stats"),
    (PROFILING_INTERNAL, "pytensor.compile.profiling", "register_profiler_printer"),
    (PROFILING_INTERNAL, "pytensor.compile.debug.profiling", "extended_open print_global_stats"),
    (PROFILING_INTERNAL, "pytensor.compile.debug.profiling", "register_profiler_printer"),
    # ifelse, raise_op, scan
    (IFELSE, "pytensor.ifelse", "CondMerge cond_merge_ifs_false"),
    (IFELSE, "pytensor.ifelse", "cond_merge_ifs_true cond_merge_random_op cond_remove_identical"),
    (IFELSE, "pytensor.ifelse", "ifelse_lift_single_if_through_acceptable_ops"),
    (IFELSE, "pytensor.raise_op", "ExceptionType exception_type"),
    (IFELSE, "pytensor.raise_op", "vectorize_check_and_raise"),
]:
    ABSENT.update(_entries(_reason, _module, _names))

for _reason, _module, _names in [
    # printing
    (PRINTER_CLASSES, "pytensor.printing", "ConstantPrinter DefaultPrinter FunctionPrinter"),
    (PRINTER_CLASSES, "pytensor.printing", "IgnorePrinter LeafPrinter OperatorPrinter PPrinter"),
    (PRINTER_CLASSES, "pytensor.printing", "PatternPrinter Printer PrinterState"),
    (PRINTER_CLASSES, "pytensor.printing", "constant_printer default_printer leaf_printer"),
    (PY_INTERNAL, "pytensor.printing", "GraphNode char_from_number get_node_by_id hex_digest"),
    (PY_INTERNAL, "pytensor.printing", "min_informative_str op_debug_information"),
    (PY_INTERNAL, "pytensor.printing", "position_independent_str set_precedence var_descriptor"),
    (PRINTER_CLASSES, "pytensor.tensor.basic", "MakeVectorPrinter"),
    (PRINTER_CLASSES, "pytensor.tensor.elemwise", "DimShufflePrinter"),
    (PRINTER_CLASSES, "pytensor.tensor.subtensor", "AdvancedIncSubtensorPrinter"),
    (PRINTER_CLASSES, "pytensor.tensor.subtensor", "AdvancedSubtensorPrinter"),
    (PRINTER_CLASSES, "pytensor.tensor.subtensor", "IncSubtensorPrinter SubtensorPrinter"),
    # tensor: modules
    (C_BACKEND, "pytensor.tensor", "blas_c blas_headers elemwise_cgen"),
    (PY_INTERNAL, "pytensor.tensor", "symbolic type_other utils"),
    # tensor: functions and ops not built yet
    (GRAPH_FUNCTION, "pytensor.tensor.basic", "PermuteRowElements"),
    (GRAPH_FUNCTION, "pytensor.tensor.basic", "permute_row_elements"),
    (OPTDB, "pytensor.tensor.basic", "CachedEquilibrimDB infer_shape_db register_infer_shape"),
    (OPTDB, "pytensor.tensor.basic", "register_transfer"),
    (VECTORIZE_RULE, "pytensor.tensor.basic", "vectorize_alloc vectorize_extract_diag"),
    (VECTORIZE_RULE, "pytensor.tensor.basic", "vectorize_join vectorize_make_vector"),
    (VECTORIZE_RULE, "pytensor.tensor.basic", "vectorize_scalar_from_tensor"),
    (VECTORIZE_RULE, "pytensor.tensor.basic", "vectorize_tensor_from_scalar"),
    (PY_INTERNAL, "pytensor.tensor.blockwise", "BlockwiseWithCoreShape OpWithCoreShape"),
    (PY_INTERNAL, "pytensor.tensor.blockwise", "vectorize_node_fallback"),
    (PY_INTERNAL, "pytensor.tensor.elemwise", "get_normalized_batch_axes scalar_elemwise"),
    (VECTORIZE_RULE, "pytensor.tensor.elemwise", "vectorize_careduce vectorize_dimshuffle"),
    (PY_INTERNAL, "pytensor.tensor.extra_ops", "SearchsortedOp broadcast_shape_iter"),
    (C_BACKEND, "pytensor.tensor.extra_ops", "CpuContiguous cpu_contiguous"),
    (VECTORIZE_RULE, "pytensor.tensor.extra_ops", "vectorize_cum_op"),
    (LINALG_GRAPHS, "pytensor.tensor.linalg", "KroneckerProduct"),
    (LINALG_GRAPHS, "pytensor.tensor.linalg", "TensorInv TensorSolve"),
    (SUBMODULE_LAYOUT, "pytensor.tensor.linalg", "constructors decomposition dtype_utils"),
    (SUBMODULE_LAYOUT, "pytensor.tensor.linalg", "products solvers summary"),
    (PY_INTERNAL, "pytensor.tensor.math", "FixedOpCAReduce NonZeroDimsCAReduce makeKeepDims"),
    (PY_INTERNAL, "pytensor.tensor.math", "mod_check isinf_ isnan_"),
    (VECTORIZE_RULE, "pytensor.tensor.math", "vectorize_argmax_node vectorize_node_dot"),
    (PY_INTERNAL, "pytensor.tensor.random.utils", "broadcast_params compute_batch_shape"),
    (PY_INTERNAL, "pytensor.tensor.random.utils", "custom_rng_deepcopy explicit_expand_dims"),
    (PY_INTERNAL, "pytensor.tensor.random.utils", "params_broadcast_shapes"),
    (PY_INTERNAL, "pytensor.tensor.random.utils", "supp_shape_from_ref_param_shape"),
    (C_BACKEND, "pytensor.tensor.shape", "register_shape_c_code register_shape_i_c_code"),
    (VECTORIZE_RULE, "pytensor.tensor.shape", "vectorize_shape"),
    (PY_INTERNAL, "pytensor.tensor.sharedvar", "load_shared_variable scalar_constructor"),
    (PY_INTERNAL, "pytensor.tensor.sort", "ArgSortOp SortOp"),
    (SCALAR_CLASSES, "pytensor.tensor.special", "XLog1PY XLogY"),
    (VECTORIZE_RULE, "pytensor.tensor.special", "vectorize_softmax_node"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "BaseSubtensor as_index_constant"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "as_index_literal basic_shape"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "as_scalar_index_variable"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "as_tensor_index_variable"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "flatten_index_variables group_indices"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "get_canonical_form_slice get_idx_list"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "get_constant_idx get_slice_elements"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "indexed_result_shape slice_at_axis"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "indices_from_subtensor slice_len"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "slice_static_length"),
    (SUBTENSOR_INTERNAL, "pytensor.tensor.subtensor", "unflatten_index_variables"),
    (VECTORIZE_RULE, "pytensor.tensor.subtensor", "vectorize_advanced_subtensor"),
    (VECTORIZE_RULE, "pytensor.tensor.subtensor", "vectorize_subtensor"),
    (PY_INTERNAL, "pytensor.tensor.variable", "TensorConstantSignature"),
]:
    ABSENT.update(_entries(_reason, _module, _names))
