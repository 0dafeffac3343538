# What `cmake --install` adds beside the binaries, and the Debian package (CPack, DEB):
# the AppStream metainfo, the man page of histoscope-cli (help2man, from its --help and
# --version, so it cannot drift from them) and its bash completion. The desktop file, the icon
# and the samples are installed with the GUI (app/CMakeLists.txt).
include(GNUInstallDirs)

configure_file(${PROJECT_SOURCE_DIR}/resources/packaging/io.github.histoscope.metainfo.xml
               ${PROJECT_BINARY_DIR}/io.github.histoscope.metainfo.xml @ONLY)
if(HS_WITH_UI)
    install(FILES ${PROJECT_BINARY_DIR}/io.github.histoscope.metainfo.xml
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/metainfo)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/resources/packaging/histoscope-cli.bash
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME histoscope-cli)

find_program(HS_HELP2MAN help2man)
if(HS_HELP2MAN)
    # Compressed as Debian installs man pages (gzip -n: no name or time stamp, reproducible).
    set(hs_man ${PROJECT_BINARY_DIR}/histoscope-cli.1)
    add_custom_command(OUTPUT ${hs_man}.gz
        COMMAND ${HS_HELP2MAN} --no-info --section 1 --output ${hs_man}
                --name "exact image histograms, contrast equalization and histogram kernel benchmarks"
                $<TARGET_FILE:histoscope-cli>
        COMMAND gzip -9 -n -f ${hs_man}
        DEPENDS histoscope-cli
        COMMENT "Man page of histoscope-cli (help2man)")
    add_custom_target(hs_man_page ALL DEPENDS ${hs_man}.gz)
    install(FILES ${hs_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
    message(STATUS "Histoscope: help2man not found, no man page for histoscope-cli")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME histoscope)
set(CPACK_PACKAGE_VENDOR "Histoscope")
set(CPACK_PACKAGE_CONTACT "Seed 09b2dd9c maintainers <maintainers@users.noreply.a-seed-09b2dd9c.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "exact image histograms on the CPU and the GPU")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Histoscope opens photos and video and shows the exact per-channel histograms of every\n\
frame, 8-bit to 16-bit deep colour, computed on the GPU where CUDA is present and checked\n\
against an exact CPU reference; it equalizes contrast (global, CLAHE, matching) and compares\n\
histogram kernels. histoscope-cli does the same headless.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
# Libraries from dpkg-shlibdeps; the Qt plugins the GUI loads at run time are not linked.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(HS_WITH_UI)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6")
endif()
set(CPACK_STRIP_FILES ON)
include(CPack)
