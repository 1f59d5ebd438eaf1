# Thin wrapper around tasks.py, for those who have make. tasks.py needs only Python 3.10+.
# Extra arguments: make test ARGS="-k journal -x"   make lab ARGS="--no-browser"
PYTHON ?= python3
ARGS ?=

.PHONY: lab test setup clean

lab:
	$(PYTHON) tasks.py lab $(ARGS)

test:
	$(PYTHON) tasks.py test $(ARGS)

setup:
	$(PYTHON) tasks.py setup

clean:
	$(PYTHON) tasks.py clean
