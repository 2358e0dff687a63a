/**
 * The completion scripts for bash, zsh and fish. Each one hands the words of the line up to the
 * cursor to `payops __complete` and shows what it answers (see complete.ts for the protocol): the
 * scripts know nothing of payops' commands, so they never go stale when payops is upgraded.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/** The shell named by a path such as $SHELL (`/usr/bin/zsh` -> zsh), if payops completes it. */
export function shellOf(path: string | undefined): Shell | undefined {
  const name = path?.split(/[\\/]/).pop()?.replace(/\.exe$/i, '')
  return (SHELLS as readonly string[]).includes(name ?? '') ? (name as Shell) : undefined
}

const bash = (bin: string) => `# ${bin} completion for bash: values come from \`${bin} __complete\`, which reads only this
# machine's files (profiles, the names book, the audit trail) and never the network.
# Load it from ~/.bashrc:  eval "$(${bin} autocomplete script bash)"
_${bin}_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  # The words up to the cursor, split on blanks only: bash splits '--from=ID' and 'a:b' in
  # COMP_WORDS, payops reads them whole.
  local line=\${COMP_LINE:0:COMP_POINT}
  local -a words
  read -r -a words <<< "$line"
  if [[ -z $line || $line == *[[:blank:]] ]]; then words+=(''); fi
  local prog=\${words[0]}
  [[ $prog == "~"* ]] && prog=\${prog/#\\~/$HOME}
  local out
  out=$("$prog" __complete "\${words[@]:1}" 2>/dev/null) || return 0
  local directive=\${out##*:}
  [[ $directive =~ ^[0-9]+$ ]] || return 0
  (( directive & 1 )) && return 0
  local -a values=() descs=()
  local l
  while IFS= read -r l; do
    [[ -z $l || $l == :* ]] && continue
    values+=("\${l%%$'\\t'*}")
    if [[ $l == *$'\\t'* ]]; then descs+=("\${l#*$'\\t'}"); else descs+=(''); fi
  done <<< "$out"
  (( directive & 2 )) && compopt -o nospace 2>/dev/null
  if (( \${#values[@]} == 0 )); then
    if (( ! (directive & 4) )); then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
  fi
  # bash replaces only its own last word (split at '=' and ':'), the end of ours: each value
  # loses what comes before it.
  local typed=\${words[\${#words[@]}-1]}
  local skip=$(( \${#typed} - \${#cur} ))
  (( skip < 0 )) && skip=0
  local i
  for i in "\${!values[@]}"; do values[i]=\${values[i]:skip}; done
  if (( \${#values[@]} == 1 )); then
    COMPREPLY=("\${values[0]}")
    return 0
  fi
  local width=0
  for i in "\${!values[@]}"; do (( \${#values[i]} > width )) && width=\${#values[i]}; done
  COMPREPLY=()
  for i in "\${!values[@]}"; do
    if [[ -n \${descs[i]} ]]; then
      # One candidate a line, its description beside it (bash inserts only the common start).
      local entry
      printf -v entry '%-*s  (%s)' "$width" "\${values[i]}" "\${descs[i]}"
      local cols=\${COLUMNS:-80}
      (( \${#entry} > cols - 1 )) && entry="\${entry:0:cols-2}…"
      # Padded to the width in characters (printf would count bytes), so that each takes a line.
      local pad=$(( cols - 1 - \${#entry} ))
      (( pad > 0 )) && printf -v entry '%s%*s' "$entry" "$pad" ''
      COMPREPLY+=("$entry")
    else
      COMPREPLY+=("\${values[i]}")
    fi
  done
}
complete -o default -F _${bin}_complete ${bin}
`

const zsh = (bin: string) => `#compdef ${bin}
# ${bin} completion for zsh: values come from \`${bin} __complete\`, which reads only this
# machine's files (profiles, the names book, the audit trail) and never the network.
# Load it from ~/.zshrc, after compinit:  eval "$(${bin} autocomplete script zsh)"
# (or save it as _${bin} in a folder of $fpath).
_${bin}() {
  local out directive l v d
  local -a lines values opts
  out=$(command \${words[1]} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  [[ $directive == <-> ]] || return 1
  (( directive & 1 )) && return 1
  for l in "\${(@)lines[1,-2]}"; do
    [[ -z $l ]] && continue
    v=\${l%%$'\\t'*}
    d=''
    [[ $l == *$'\\t'* ]] && d=\${l#*$'\\t'}
    values+=("\${v//:/\\\\:}\${d:+:$d}")
  done
  if (( \${#values} == 0 )); then
    (( directive & 4 )) || _files
    return
  fi
  (( directive & 2 )) && opts=(-S '')
  _describe -t values '${bin}' values "\${opts[@]}"
}
if [[ \${funcstack[1]} == _${bin} ]]; then
  _${bin} "$@"
else
  compdef _${bin} ${bin}
fi
`

const fish = (bin: string) => `# ${bin} completion for fish: values come from \`${bin} __complete\`, which reads only this
# machine's files (profiles, the names book, the audit trail) and never the network.
# Save it:  ${bin} autocomplete script fish > ~/.config/fish/completions/${bin}.fish
function __${bin}_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $tokens[1]
    set -e tokens[1]
    set -l out (command $prog __complete $tokens $cur 2>/dev/null)
    or return
    test (count $out) -gt 0; or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive; or return
    set -e out[-1]
    test (math "bitand($directive, 1)") -eq 0; or return
    if test (count $out) -eq 0
        if test (math "bitand($directive, 4)") -eq 0
            __fish_complete_path $cur
        end
        return
    end
    printf '%s\\n' $out
end
complete -c ${bin} -f -k -a '(__${bin}_complete)'
`

/** The completion script of a shell for the program named `bin`. */
export function completionScript(shell: Shell, bin: string): string {
  return {bash, zsh, fish}[shell](bin)
}

/** How to load the script, one line per step. */
export function installInstructions(shell: Shell, bin: string): string[] {
  switch (shell) {
    case 'bash':
      return [`Add this line to ~/.bashrc, then open a new shell:`, ``, `  eval "$(${bin} autocomplete script bash)"`]
    case 'zsh':
      return [`Add this line to ~/.zshrc after \`compinit\`, then open a new shell:`, ``, `  eval "$(${bin} autocomplete script zsh)"`]
    case 'fish':
      return [`Run this once (fish loads it in every new shell):`, ``, `  ${bin} autocomplete script fish > ~/.config/fish/completions/${bin}.fish`]
  }
}
