"""Builds and installs the llmecon Python package with the system's own tools, offline:

    pip install --no-build-isolation --no-deps ./python

The extension is the project's CMake target `_llmecon` (the whole engine, statically linked), built
against the Debian packages scripts/bootstrap.sh installs; nothing is downloaded.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures the project with only the module on, builds `_llmecon`, and puts it where setuptools wants it."""

    def build_extension(self, ext):
        # LLMECON_BUILD_DIR: an already configured build of the project, whose module target is
        # reused (a relative path is from the repository's root).
        given = os.environ.get("LLMECON_BUILD_DIR")
        build = (ROOT / given).resolve() if given else ROOT / "build" / "python-package"
        jobs = str(os.cpu_count() or 2)
        if not given:
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPYTHON_EXECUTABLE={sys.executable}", "-DLLMECON_BUILD_CLI=OFF",
                            "-DLLMECON_BUILD_TESTS=OFF", "-DLLMECON_BUILD_BENCH=OFF", "-DLLMECON_BUILD_PYTHON=ON"],
                           check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_llmecon", "-j", jobs], check=True)
        built = next((build / "python" / "llmecon").glob("_llmecon*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="llmecon",
    version="0.1.0",
    description="The economics of training and serving large language models",
    packages=["llmecon"],
    ext_modules=[CMakeExtension("llmecon._llmecon")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
