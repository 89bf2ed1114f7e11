import logging

import pytest


@pytest.fixture(autouse=True)
def _logging_tensor_logger_propagates_between_tests():
    # capture_logs (torch's and torchpy's) leaves the "LoggingTensor" logger non-propagating;
    # pytest then attaches its own capture handler to it for the next test, and that handler
    # cannot format these records (their args are (args, kwargs, result), not %-values).
    logging.getLogger("LoggingTensor").propagate = True
    yield
