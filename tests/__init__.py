"""GPU Advisor's tests (a regular package: gpuhunt's wheel installs a top-level ``tests`` package that would
otherwise shadow this namespace package and break ``from tests.conftest import ...``)."""
