"""The test suite: its folders mirror bench_gui/ (see conftest.py for what every test gets)."""
