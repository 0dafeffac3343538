# hs_target_warnings(<target>): strict warnings on Histoscope's own code (not on dependencies).
function(hs_target_warnings target)
    set(cxx_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
        -Wold-style-cast -Woverloaded-virtual -Wnull-dereference)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
        # GCC 12 reports false -Wrestrict overlaps inside std::string concatenation at -O2/-O3
        # (GCC bug 105329, fixed in GCC 13).
        list(APPEND cxx_flags -Wno-restrict)
    endif()
    if(HS_WARNINGS_AS_ERRORS)
        list(APPEND cxx_flags -Werror)
    endif()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>)
    if(HS_HAVE_CUDA)
        # Host code of .cu files goes through the host compiler (-Xcompiler); nvcc's own
        # front-end warnings (device code) are promoted by --Werror=all-warnings (nvcc 12/13).
        set(cuda_flags -Xcompiler=-Wall,-Wextra)
        if(HS_WARNINGS_AS_ERRORS)
            list(APPEND cuda_flags --Werror=all-warnings -Xcompiler=-Werror)
        endif()
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${cuda_flags}>)
    endif()
endfunction()
