"""Builds crawlrank._core with CMake (the same target the CMake build makes), so that

    pip install --no-build-isolation .

works offline with Debian's pybind11 and setuptools. Only the library and the module are
built (no tools, tests or benchmarks); CRAWLRANK_BUILD_JOBS sets the parallel jobs.
CRAWLRANK_UNOPTIMIZED=1 compiles without optimisation, in about half the time: for the
test that checks the install works (tests/python/test_install.py), never for use."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = Path(self.build_temp).resolve() / "cmake"
        package_dir = build_dir / "python"
        jobs = os.environ.get("CRAWLRANK_BUILD_JOBS", str(os.cpu_count() or 2))
        quick = (["-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"]
                 if os.environ.get("CRAWLRANK_UNOPTIMIZED") == "1" else [])
        subprocess.run(
            ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release", *quick,
             "-DCRAWLRANK_BUILD_TESTS=OFF", "-DCRAWLRANK_BUILD_TOOLS=OFF",
             "-DCRAWLRANK_BUILD_BENCHMARKS=OFF", "-DCRAWLRANK_BUILD_PYTHON=ON",
             f"-DPython3_EXECUTABLE={sys.executable}", f"-DPython_EXECUTABLE={sys.executable}",
             f"-DCRAWLRANK_PYTHON_DIR={package_dir}"],
            check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "crawlrank_python",
                        "-j", jobs], check=True)
        built = next((package_dir / "crawlrank").glob("_core*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)
        # The URLFrontier messages crawlrank.frontier imports (generated when protoc is there).
        schema = package_dir / "crawlrank" / "_urlfrontier_pb2.py"
        if schema.exists():
            shutil.copy2(schema, target.parent / schema.name)


setup(ext_modules=[Extension("crawlrank._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
