# bash completion for histoscope-cli: its commands, then each command's options.
_histoscope_cli() {
    local cur prev words cword
    _init_completion || return
    local commands="info hist equalize kernels bench"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        --format)
            COMPREPLY=($(compgen -W "text table csv json" -- "$cur"))
            return ;;
        --kernel | --kernels)
            COMPREPLY=($(compgen -W "$(histoscope-cli kernels 2>/dev/null | cut -f1 | grep -v '^#') all" -- "$cur"))
            return ;;
        --mode)
            COMPREPLY=($(compgen -W "global clahe match" -- "$cur"))
            return ;;
        --space)
            COMPREPLY=($(compgen -W "luma rgb" -- "$cur"))
            return ;;
        --channels | --select)
            COMPREPLY=($(compgen -W "all r g b a gray luma luma709 rgb" -- "$cur"))
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
    if [[ "$cur" == -* ]]; then
        # The command's own --help lists its options (generated from what the parser accepts).
        local opts
        opts="$(histoscope-cli "${words[1]}" --help 2>/dev/null |
            grep -oE '^ +-[^ ]+' | tr ',' '\n' | tr -d ' ')"
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    _filedir
}
complete -F _histoscope_cli histoscope-cli
