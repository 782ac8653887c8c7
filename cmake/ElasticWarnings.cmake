# One interface target carries the project's warning flags; every target of ours links it.
add_library(elastic_warnings INTERFACE)
target_compile_options(elastic_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wconversion -Wno-sign-conversion -Wimplicit-fallthrough>
  $<$<AND:$<BOOL:${ELASTIC_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>)
