// The one translation unit that compiles volk (the loader is opened with dlopen at run time).
#define VOLK_IMPLEMENTATION
#include <volk.h>
