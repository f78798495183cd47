//! `whittle`: the command-line entry point (the command itself is
//! [`whittle::command`]).

fn main() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    few_arenas();
    std::process::exit(whittle::command::run(std::env::args_os()));
}

/// The servers (`mcp`, `serve`) run with glibc's allocator held to two
/// arenas, unless `MALLOC_ARENA_MAX` is set already: sessions allocate on
/// whichever threads their calls ran on, and with an arena per thread the
/// memory they freed stayed spread over a dozen arenas, the server's RSS
/// near its peak long after the sessions ended. The process runs itself
/// again with the variable set (same process id, same standard streams);
/// if that fails it goes on as it is.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn few_arenas() {
    use std::os::unix::process::CommandExt as _;
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    // A word `mcp` or `serve` anywhere (after global options, say); a file
    // of that name on another command only runs with the variable set.
    let server = args.iter().any(|a| a == "mcp" || a == "serve");
    if !server || std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    // `exec` returns only if it failed.
    let _ = std::process::Command::new(exe).args(args).env("MALLOC_ARENA_MAX", "2").exec();
}
