# ctest -P script: runs `histoscope --screenshot ... --screenshot-compare ... INPUT` and checks that
# it exits 0 and that both PNGs exist, are non-empty and have the sizes the scripted run gives
# the main window and Compare Kernels (app/gui/scripted_run.hpp).
#   -DHISTOSCOPE=<binary> -DINPUT=<file> -DOUT_DIR=<scratch folder>
foreach(var HISTOSCOPE INPUT OUT_DIR)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "screenshot_run.cmake: -D${var}= is required")
    endif()
endforeach()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
set(window_png "${OUT_DIR}/window.png")
set(compare_png "${OUT_DIR}/compare.png")
execute_process(
    COMMAND "${HISTOSCOPE}" --screenshot "${window_png}" --screenshot-compare "${compare_png}"
            --screenshot-timeout 240 "${INPUT}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "histoscope exited with ${rc}")
endif()
if(NOT out MATCHES "compare: cpu: ok, exact")
    message(FATAL_ERROR "no verified cpu row among Compare Kernels' lines")
endif()

# check_png(FILE WIDTH HEIGHT): a PNG signature and an IHDR of that size.
function(check_png path width height)
    if(NOT EXISTS "${path}")
        message(FATAL_ERROR "${path} was not written")
    endif()
    file(SIZE "${path}" size)
    if(size LESS 1000)
        message(FATAL_ERROR "${path} has ${size} bytes")
    endif()
    file(READ "${path}" head LIMIT 24 HEX)
    string(SUBSTRING "${head}" 0 16 signature)
    string(SUBSTRING "${head}" 24 8 chunk)
    string(SUBSTRING "${head}" 32 8 w_hex)
    string(SUBSTRING "${head}" 40 8 h_hex)
    if(NOT signature STREQUAL "89504e470d0a1a0a" OR NOT chunk STREQUAL "49484452")
        message(FATAL_ERROR "${path} is not a PNG (starts ${head})")
    endif()
    math(EXPR w "0x${w_hex}")
    math(EXPR h "0x${h_hex}")
    if(NOT w EQUAL width OR NOT h EQUAL height)
        message(FATAL_ERROR "${path} is ${w}x${h}, not ${width}x${height}")
    endif()
    message("${path}: ${w}x${h}, ${size} bytes")
endfunction()

check_png("${window_png}" 1600 1000)
check_png("${compare_png}" 1200 800)
