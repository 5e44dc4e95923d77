#include <assist_plugin.h>
