# bash completion for histoscope-cli: its commands, then each command's options and their
# values, read from the program itself (COMMAND --help and `kernels`), so they cannot drift.
_histoscope_cli() {
    local cur prev words cword
    _init_completion || return
    local commands="info hist equalize kernels bench"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command="${words[1]}"
    local help
    help="$(histoscope-cli "$command" --help 2>/dev/null)"
    # The engines of `kernels`: histogram engines first, the equalizers after their heading.
    _histoscope_cli_engines() {
        histoscope-cli kernels 2>/dev/null |
            awk -v want="$1" '/^# equalizers/ { eq = 1; next } /^#/ { next }
                              (want == "equalizers") == (eq == 1) { print $1 }'
    }
    case "$prev" in
        --kernel)
            if [[ "$command" == equalize ]]; then
                COMPREPLY=($(compgen -W "$(_histoscope_cli_engines equalizers)" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(_histoscope_cli_engines histogram)" -- "$cur"))
            fi
            return ;;
        --kernels)
            COMPREPLY=($(compgen -W "all $(_histoscope_cli_engines histogram)" -- "$cur"))
            return ;;
        --channels | --select)
            if [[ "$command" == bench && "$prev" == --channels ]]; then
                COMPREPLY=($(compgen -W "1 3 4" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "all r g b a gray luma luma709 rgb" -- "$cur"))
            fi
            return ;;
        --synthetic)
            COMPREPLY=($(compgen -W "uniform degenerate gauss: ramp" -- "$cur"))
            return ;;
        --depth)
            COMPREPLY=($(compgen -W "8 16" -- "$cur"))
            return ;;
        -o | --reference)
            _filedir
            return ;;
    esac
    if [[ "$prev" == -* ]]; then
        # An option with a fixed set of values shows them in its help ("--mode :{a,b}").
        local line choices
        line="$(grep -E -- "^ +$prev " <<<"$help" | head -n 1)"
        if [[ "$line" =~ :\{([^}]*)\} ]]; then
            choices="${BASH_REMATCH[1]//,/ }"
            COMPREPLY=($(compgen -W "$choices" -- "$cur"))
            return
        fi
        # Any other option that takes a value (a type after its name): nothing to offer.
        if [[ "$line" =~ ^\ +$prev\ +[A-Z:] ]]; then
            COMPREPLY=()
            return
        fi
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(grep -oE '^ +-[^ ]+' <<<"$help" | tr ',' '\n' | tr -d ' ')" \
            -- "$cur"))
        return
    fi
    _filedir
}
complete -F _histoscope_cli histoscope-cli
