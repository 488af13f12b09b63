// The storage tests' temporary folder is the one every test uses: a second
// class of the same name would break the one-definition rule in any binary
// that links both (tests/test_util.h).
#pragma once

#include "test_util.h"
