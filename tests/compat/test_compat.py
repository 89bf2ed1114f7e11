"""torchpy.compat: torch code runs on torchpy with only the import resolved differently."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import torch
    import torch.nn.functional as F
    from torch.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            print(func)
            return func(*args, **(kwargs or {}))

    x = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    with Log():
        y = F.linear(x, torch.ones(3, 2)).relu().sum()
    y.backward()
    print(torch.__name__, x.grad.tolist())
""")


def _run(args, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True, check=True,
                          env=dict(os.environ), cwd=tmp_path).stdout


def test_python_m_torchpy_compat_runs_a_torch_script_with_the_same_output(tmp_path):
    ours = _run(["-m", "torchpy.compat"], tmp_path)
    theirs = _run([], tmp_path)
    assert ours.splitlines()[:-1] == theirs.splitlines()[:-1]  # the same aten calls
    assert ours.splitlines()[-1] == "torchpy " + theirs.splitlines()[-1].split(" ", 1)[1]


def test_install_and_uninstall():
    import torchpy.compat

    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    try:
        torchpy.compat.install()
        import torch

        assert torch.__name__ == "torchpy"
        assert sys.modules["torch.utils._python_dispatch"].__name__ == "torchpy.utils._python_dispatch"
        torchpy.compat.uninstall()
        assert "torch" not in sys.modules
    finally:
        sys.modules.update(saved)
