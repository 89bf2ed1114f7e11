"""Meta rules: sizes, strides and dtypes of results computed from metadata alone.

One module per family. A rule takes shapes, strides, dtypes and the op's other arguments,
never an array or a Tensor's data, so it serves both the Meta kernel (which is the rule plus
`meta_tensor`) and the CPU kernel (which allocates or describes its result by it), and the two
cannot drift. tests/conformance/test_meta_every_op.py checks every op's meta result against
torch's.
"""
