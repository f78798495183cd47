//! `whittle`: the command-line entry point.

use clap::{Parser, Subcommand};
use whittle::cli::{self, Format};

/// whittle: web pages as a few hundred tokens of plain text for AI agents.
#[derive(Debug, Parser)]
#[command(name = "whittle", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the observation of a page (a file, `-` for stdin, or a URL).
    Snapshot {
        /// FILE, URL, or `-`.
        source: String,
        /// `text` (the observation) or `json` (the structured envelope).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The page's URL, for the header and for resolving links.
        #[arg(long)]
        base_url: Option<String>,
        /// `full` (everything, the default), `actions` (what has a ref, with
        /// the landmarks and headings that place it) or `read` (the main
        /// content as prose).
        #[arg(long, value_name = "actions|full|read")]
        mode: Option<String>,
        /// Token budget (o200k) the observation must fit; repeated items and
        /// prose fold to meet it (default 3000).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        budget: Option<String>,
        /// Show only the subtree of this ref, with folding relaxed.
        #[arg(long, value_name = "REF", allow_hyphen_values = true)]
        expand: Option<String>,
        /// No folding and no budget: every line, every ref.
        #[arg(long)]
        no_fold: bool,
        /// Also print diagnostics (recovered parse errors, skipped CSS) to stderr.
        #[arg(short, long)]
        verbose: bool,
        /// The viewport, `WIDTHxHEIGHT` in CSS px (media queries, layout,
        /// what is in view).
        #[arg(long, value_parser = cli::parse_viewport, default_value = "1280x800")]
        viewport: whittle_engine::Viewport,
    },
    /// Print role, name, states… of each element matching a CSS selector,
    /// one JSON object per line.
    Inspect {
        /// FILE or URL.
        source: String,
        /// A CSS selector, e.g. `form input, [role=button]`.
        selector: String,
        /// The page's URL.
        #[arg(long)]
        base_url: Option<String>,
    },
}

fn main() {
    let args = Args::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &args.command {
        Command::Snapshot { source, format, base_url, mode, budget, expand, no_fold, verbose, viewport } => {
            let view = cli::ViewArgs {
                mode: mode.as_deref(),
                budget: budget.as_deref(),
                expand: expand.as_deref(),
                no_fold: *no_fold,
            };
            cli::snapshot(source, *format, base_url.as_deref(), view, *verbose, *viewport, &mut out)
        }
        Command::Inspect { source, selector, base_url } => cli::inspect(source, selector, base_url.as_deref(), &mut out),
    };
    if let Err(e) = result {
        // A closed pipe (`| head`) is not an error worth a message.
        if let cli::CliError::Output(io) = &e
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            std::process::exit(0);
        }
        eprintln!("whittle: {e}");
        std::process::exit(e.exit_code());
    }
}
