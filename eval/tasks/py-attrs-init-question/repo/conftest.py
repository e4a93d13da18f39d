# SPDX-License-Identifier: MIT
# (trimmed for this checkout: the hypothesis profile setup was removed)

import pytest


@pytest.fixture(name="slots", params=(True, False))
def _slots(request):
    return request.param


@pytest.fixture(name="frozen", params=(True, False))
def _frozen(request):
    return request.param
