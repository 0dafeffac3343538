# ctest -P script: runs `histoscope --screenshot ... --screenshot-compare ... INPUT` and checks that
# it exits 0 and that both PNGs exist, are non-empty and have the sizes the scripted run gives
# the main window and Compare Kernels (app/gui/scripted_run.hpp).
#   -DHISTOSCOPE=<binary> -DOUT_DIR=<scratch folder> and either
#   -DINPUT=<file>       that file, or
#   -DRAW_STREAM=ON      a stream of raw frames written here, played to its last frame first
#                        (--screenshot-play); the summary line must account for every frame, and
#                        --screenshot-play of a single raw frame (a photo) must be refused.
foreach(var HISTOSCOPE OUT_DIR)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "screenshot_run.cmake: -D${var}= is required")
    endif()
endforeach()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
set(window_png "${OUT_DIR}/window.png")
set(compare_png "${OUT_DIR}/compare.png")

if(RAW_STREAM)
    # 50 gray frames of 16x8 (2 s at the 25 frames per second of raw streams), each a different
    # run of printable bytes (what CMake strings can hold), so that every frame differs.
    set(frames 50)
    set(stream "${OUT_DIR}/stream.raw")
    set(chars "!#$%&()*+-0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~")
    string(LENGTH "${chars}" nchars)
    file(WRITE "${stream}" "")
    math(EXPR last "${frames} - 1")
    foreach(f RANGE ${last})
        math(EXPR start "${f} % (${nchars} - 32)")
        string(SUBSTRING "${chars}" ${start} 32 run)
        file(APPEND "${stream}" "${run}${run}${run}${run}")
    endforeach()
    file(SIZE "${stream}" size)
    math(EXPR expected "${frames} * 16 * 8")
    if(NOT size EQUAL expected)
        message(FATAL_ERROR "${stream} has ${size} bytes, not ${expected}")
    endif()
    set(input --raw 16x8x1:u8 "${stream}")
    set(play --screenshot-play)
else()
    if(NOT DEFINED INPUT)
        message(FATAL_ERROR "screenshot_run.cmake: -DINPUT= or -DRAW_STREAM=ON is required")
    endif()
    set(input "${INPUT}")
    set(play)
endif()

execute_process(
    COMMAND "${HISTOSCOPE}" --screenshot "${window_png}" ${play} --screenshot-compare "${compare_png}"
            --screenshot-timeout 240 ${input}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "histoscope exited with ${rc}")
endif()
if(NOT out MATCHES "compare: cpu: ok, exact")
    message(FATAL_ERROR "no verified cpu row among Compare Kernels' lines")
endif()

if(RAW_STREAM)
    if(NOT out MATCHES "played: ([0-9]+) frames in [0-9.]+ s: ([0-9]+) shown, ([0-9]+) dropped, engine ([a-z0-9_-]+), frame stream ([a-z0-9_-]+), mean [0-9.]+ ms")
        message(FATAL_ERROR "no summary line of the playback")
    endif()
    set(played ${CMAKE_MATCH_1})
    set(shown ${CMAKE_MATCH_2})
    set(dropped ${CMAKE_MATCH_3})
    if(NOT played EQUAL frames)
        message(FATAL_ERROR "played ${played} frames of ${frames}")
    endif()
    # Frame 0 is shown before playback starts; every later one is shown or dropped.
    math(EXPR accounted "${shown} + ${dropped}")
    if(shown LESS 1 OR shown GREATER frames OR accounted LESS last)
        message(FATAL_ERROR "${shown} shown + ${dropped} dropped: not the ${last} frames played")
    endif()
    # One frame of the stream is a photo: nothing to play, which is an error of the run.
    file(READ "${stream}" one_frame LIMIT 128)
    file(WRITE "${OUT_DIR}/one.raw" "${one_frame}")
    execute_process(
        COMMAND "${HISTOSCOPE}" --screenshot "${OUT_DIR}/one.png" --screenshot-play
                --screenshot-timeout 120 --raw 16x8x1:u8 "${OUT_DIR}/one.raw"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message("${out}${err}")
    if(NOT rc EQUAL 3 OR NOT err MATCHES "error: --screenshot-play: .*one.raw is not a video or a stream of raw frames")
        message(FATAL_ERROR "--screenshot-play of one raw frame: exit ${rc}, not 3 with its error")
    endif()
    if(EXISTS "${OUT_DIR}/one.png")
        message(FATAL_ERROR "--screenshot-play of one raw frame wrote its window")
    endif()
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
