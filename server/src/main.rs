//! `whittle`: the command-line entry point (the command itself is
//! [`whittle::command`]).

fn main() {
    std::process::exit(whittle::command::run(std::env::args_os()));
}
