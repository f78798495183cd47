//! `wait`: for text to appear or go, for a time, or for the person (a
//! CAPTCHA, a 2FA prompt) on a page handed to them. Invariant: every wait
//! is bounded (`MAX_WAIT_MS`, or `MAX_USER_WAIT_MS` for the person), and a
//! condition that did not hold is `ok: false`.

use std::time::Duration;

use whittle_engine::{FoldOptions, Observation, RenderOptions, fold, render, with_main_content};

use super::{Fail, Session, ToolOutput, invalid_args};
use crate::backend::Analysis;
use crate::tools::WaitArgs;

/// The longest `wait ms`.
const MAX_WAIT_MS: u32 = 30_000;
/// How long `wait` polls a live page for `text`/`gone` by default.
const DEFAULT_WAIT_MS: u32 = 10_000;
/// The longest `wait user` (the person solving a CAPTCHA, a 2FA prompt).
const MAX_USER_WAIT_MS: u32 = 300_000;

impl Session {
    /// `wait`. On a page that runs scripts, `text`/`gone` are polled
    /// until they hold or `ms` (default [`DEFAULT_WAIT_MS`]) passes; on a
    /// static page, which changes only when acted on, they are checked once
    /// after `ms`. `user` hands the page to the person (see
    /// [`Page::hand_over`](crate::backend::Page::hand_over)) and returns
    /// when the page navigates or the condition holds, at most
    /// [`MAX_USER_WAIT_MS`].
    pub(super) async fn wait(&mut self, args: WaitArgs) -> Result<ToolOutput, Fail> {
        let user = args.user == Some(true);
        if !user && args.text.is_none() && args.gone.is_none() && args.ms.is_none() {
            return Err(invalid_args("give text, gone, ms or user"));
        }
        let live = self.tabs[self.active].page.is_live();
        let mut lines = Vec::new();
        if user {
            let Some(place) = self.tabs[self.active].page.hand_over() else {
                let text = "⏸ waiting for the person: the static engine does not show this tab to them; \
                            ask them to finish (CAPTCHA, 2FA) in their own browser, then navigate or observe again\n";
                return self.answer("wait", text.to_owned()).await;
            };
            lines.push(format!("⏸ handed to the person: they can use this page at {place} (on this machine)"));
        }
        let conditions = args.text.is_some() || args.gone.is_some();
        let (limit, poll) = match (user, live && conditions) {
            (true, _) => (args.ms.unwrap_or(MAX_USER_WAIT_MS).min(MAX_USER_WAIT_MS), true),
            (false, true) => (args.ms.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS), true),
            (false, false) => (args.ms.unwrap_or(0).min(MAX_WAIT_MS), false),
        };
        let start = tokio::time::Instant::now();
        let limit_d = Duration::from_millis(u64::from(limit));
        if !poll {
            tokio::time::sleep(limit_d).await;
        }
        let url_before = self.tabs[self.active].page.url().cloned();
        let (held, checks, navigated) = loop {
            let tab = &mut self.tabs[self.active];
            let page_text = {
                let analysis = tab.page.analysis(&mut self.refs).await?;
                observe_analysis(analysis, &FoldOptions::unfolded()).text().to_lowercase()
            };
            let mut checks = Vec::new();
            if let Some(t) = &args.text {
                checks.push((page_text.contains(&t.to_lowercase()), format!("{t:?} is on the page"), format!("{t:?} is not on the page")));
            }
            if let Some(g) = &args.gone {
                checks.push((!page_text.contains(&g.to_lowercase()), format!("{g:?} is not on the page"), format!("{g:?} is still on the page")));
            }
            let navigated = user && tab.page.url() != url_before.as_ref();
            let held = if user { navigated || (conditions && checks.iter().all(|c| c.0)) } else { checks.iter().all(|c| c.0) };
            if held || !poll || start.elapsed() >= limit_d {
                break (held, checks, navigated);
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
            self.tabs[self.active].page.touch();
        };
        let quiet = !live && !held && conditions;
        for (ok, yes, no) in checks {
            lines.push(match (ok, quiet) {
                (true, _) => format!("✓ {yes}"),
                (false, true) => format!("✗ {no} (a page without scripts changes only when acted on or reloaded)"),
                (false, false) => format!("✗ {no}"),
            });
        }
        if user {
            lines.push(if navigated { "✓ the person moved the page on".to_owned() } else if held { "✓ the person is done".to_owned() } else { format!("✗ the person did not finish within {} s", limit / 1000) });
        } else if args.ms.is_some() && !poll {
            lines.push(format!("✓ waited {limit} ms"));
        } else if poll {
            lines.push(format!("waited {} ms", start.elapsed().as_millis()));
        }
        let mut out = self.answer("wait", lines.join("\n")).await?;
        if !held && (conditions || user) {
            out.envelope.ok = false;
            out.envelope.server.error = Some(whittle_engine::render::envelope::ErrorInfo {
                code: "wait_timeout".into(),
                message: "the condition did not hold".into(),
            });
        }
        Ok(out)
    }
}

/// Folds and renders an analysis.
fn observe_analysis(a: &Analysis, options: &FoldOptions) -> Observation {
    let options = with_main_content(*options, &a.document, &a.styles, &a.concealment, &a.semantics);
    let folded = fold(&a.document, &a.tree, &a.layout, &options, &RenderOptions::default());
    render(&a.document, &folded)
}
