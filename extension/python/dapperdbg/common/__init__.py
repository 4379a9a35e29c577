"""What every part of the debuggee uses: path identity and which files are the
debugger's (paths), which are library code (library_code), the executable lines of
source and code objects (code_lines), and the two kinds of failure (errors)."""
