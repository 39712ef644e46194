// Placeholder: replaced by the PTX front-end work in this session.
#include "ptx/Ir.h"
