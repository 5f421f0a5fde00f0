"""Build the compiled core: every cext/thurn_ai/*.pyx becomes an extension module inside thurn_ai."""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
sources = sorted((HERE / "cext" / "thurn_ai").glob("*.pyx"))
extensions = [
    Extension(
        f"thurn_ai.{src.stem}",
        [str(src.relative_to(HERE))],
        extra_compile_args=["-O3"],
    )
    for src in sources
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["cext"],
        compiler_directives={"language_level": "3"},
        quiet=True,
    ),
)
