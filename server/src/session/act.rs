//! `act`: steps run in order on the active tab, each on a target named by
//! ref (checked against its `snapshot_id`) or by text, with a `✓`/`✗` line
//! each, then the diff of the view (or the whole view when it is cheaper
//! or the tab changed). Invariant: every step's arguments are checked
//! before any runs, and steps after a failed one are not run.

use std::collections::VecDeque;

use whittle_engine::line::role_word;
use whittle_engine::tree::Widget;
use whittle_engine::safety::Vault;
use whittle_engine::{FoldOptions, NodeId};

use super::{Fail, MAX_TABS, Session, Tab, ToolOutput, arrival_line, invalid_args, with_notices};
use crate::backend::{Analysis, Arrival, BrowseError, Effect, Navigation, PageAction};
use crate::tools::{ActArgs, Do, Step};

/// A diff is sent instead of the full view only when it costs at most this
/// share of it (docs/observation.md).
const DIFF_SHARE: f64 = 0.75;

impl Session {
    pub(super) async fn act(&mut self, args: ActArgs) -> Result<ToolOutput, Fail> {
        let confirm = args.confirm.unwrap_or(false);
        let steps = args.into_steps().map_err(invalid_args)?;
        for s in &steps {
            check_step(s)?;
        }
        let before = self.default_view().await?;
        let start_tab = self.active;
        let start_engine = self.tab().page.engine();
        let mut lines: Vec<String> = Vec::new();
        let mut arrival: Option<Arrival> = None;
        let mut failure: Option<BrowseError> = None;
        for (i, step) in steps.iter().enumerate() {
            let outcome = self.run_step(step, confirm).await;
            let events = self.tab().page.take_events();
            match outcome {
                Ok((line, effect)) => {
                    lines.push(format!("✓ {line}"));
                    lines.extend(events);
                    if let Some(a) = self.follow(effect, &mut lines).await {
                        // Keep where the batch started from.
                        let from = arrival.as_ref().and_then(|first| first.from.clone()).or(a.from.clone());
                        arrival = Some(Arrival { from, ..a });
                    }
                }
                Err((line, e)) => {
                    lines.push(self.failure_line(&line, &e).await);
                    lines.extend(events);
                    for rest in &steps[i + 1..] {
                        lines.push(format!("· not run: {}", step_words(rest)));
                    }
                    failure = Some(e);
                    break;
                }
            }
        }
        let (after, mut envelope) = self.view("act", &FoldOptions::default()).await?;
        let mut text = lines.join("\n");
        text.push('\n');
        if let Some(a) = arrival.as_ref().filter(|_| self.active == start_tab) {
            if let Some(from) = &a.from {
                text.push_str(&arrival_line(from, a, &after));
            }
            text.push_str(&with_notices(&after.text(), &envelope));
        } else if self.active != start_tab || self.tab().page.engine() != start_engine {
            // Another tab, or the page moved to the other engine (refs may
            // have changed, and a notice says so): the whole view.
            text.push_str(&with_notices(&after.text(), &envelope));
        } else {
            // The diff (docs/observation.md), unless it would cost more than 75% of
            // the whole view.
            let diff = whittle_engine::diff::diff(&before, &after);
            if diff.is_empty() && failure.is_some() {
                // The ✗ line says it all.
            } else if f64::from(diff.tokens()) <= DIFF_SHARE * f64::from(after.tokens()) {
                text.push_str(&diff.text());
            } else {
                text.push_str(&with_notices(&after.text(), &envelope));
            }
        }
        if let Some(e) = failure {
            envelope.ok = false;
            envelope.server.error = Some(whittle_engine::render::envelope::ErrorInfo { code: e.code.to_owned(), message: e.message });
        }
        Ok(ToolOutput { text, envelope, image: None })
    }

    /// Follows an action's effect on the tabs: a tab the page opened, or
    /// one a link asked for, becomes the active tab (its `⧉` line goes to
    /// `lines`). Gives the navigation, if the action navigated.
    pub(super) async fn follow(&mut self, effect: Effect, lines: &mut Vec<String>) -> Option<Arrival> {
        match effect {
            Effect::Changed => {}
            Effect::Navigated(a) => return Some(a),
            Effect::NewTab(url) => match self.open_tab().await {
                Ok(index) => {
                    self.active = index;
                    lines.push(format!("⧉ new tab {} opened (now active)", index + 1));
                    if let Err(e) = self.tab().page.navigate(Navigation::To(url), false).await {
                        lines.push(format!("✗ the new tab did not load: {}", e.message));
                    }
                }
                Err(e) => lines.push(format!("✗ no new tab: {}", e.message)),
            },
            Effect::Opened(page) => {
                if self.tabs.len() >= MAX_TABS {
                    lines.push(format!("✗ the page opened a new tab; it was not kept (a session keeps at most {MAX_TABS})"));
                } else {
                    self.tabs.push(Tab { id: self.next_tab, page, seen: VecDeque::new(), baseline: None });
                    self.next_tab += 1;
                    self.active = self.tabs.len() - 1;
                    lines.push(format!("⧉ new tab {} opened (now active)", self.active + 1));
                }
            }
        }
        None
    }

    /// Runs one step on the active tab: the `✓` line's words and what it
    /// did, or the `✗` line's words and why it failed.
    async fn run_step(&mut self, step: &Step, confirm: bool) -> Result<(String, Effect), (String, BrowseError)> {
        let words = step_words(step);
        let target = match self.target(step).await {
            Ok(t) => t,
            Err(e) => return Err((words, e)),
        };
        let (head, sensitive) = match target {
            Some((_, r)) => {
                let (line, sensitive) = self.describe(|w| w.ref_id == Some(r)).await.unwrap_or_else(|| (format!("[{r}]"), false));
                (format!("{} {line}", step.action.word()), sensitive)
            }
            None => (step.action.word().to_owned(), false),
        };
        match self.perform(step, target.map(|(n, _)| n), confirm).await {
            Ok(effect) => Ok((format!("{head}{}", step_detail(step, sensitive)), effect)),
            Err(e) => Err((head, e)),
        }
    }

    /// Performs `step` on `target` (already resolved) in the active tab.
    /// Tokens and `secret:NAME` in typed text are resolved here, on the
    /// machine.
    pub(super) async fn perform(&mut self, step: &Step, target: Option<NodeId>, confirm: bool) -> Result<Effect, BrowseError> {
        let host = self.active_host();
        self.vault.set_site(host.as_deref());
        let typed = match (step.action, step.text.as_deref()) {
            (Do::Type, Some(t)) => match self.vault.resolve(t) {
                Ok(v) => Some(v),
                Err(e) => {
                    let code = match e {
                        whittle_engine::safety::ResolveError::UnknownSecret(_) => "unknown_secret",
                        whittle_engine::safety::ResolveError::UnknownToken(_) => "unknown_token",
                        whittle_engine::safety::ResolveError::OtherSite(_) => "other_site",
                    };
                    return Err(BrowseError::new(code, e.to_string()));
                }
            },
            (_, t) => t.map(str::to_owned),
        };
        let action = PageAction {
            action: step.action,
            target,
            text: typed.as_deref(),
            values: step.values.as_deref().unwrap_or(&[]),
            key: step.key.as_deref(),
            dy: step.dy,
            files: step.files.as_deref().unwrap_or(&[]),
            confirm,
        };
        self.tab().page.act(action).await
    }

    /// The node a step acts on and its ref: from `ref` (checked against
    /// `snapshot_id`), from `text` for steps that target by text, or none.
    async fn target(&mut self, step: &Step) -> Result<Option<(NodeId, u32)>, BrowseError> {
        if let Some(r) = step.ref_id {
            if let Some(sid) = &step.snapshot_id {
                self.check_snapshot(sid, r).await?;
            }
            let node = self.node_of(r).await?;
            return Ok(Some((node, r)));
        }
        let by_text = matches!(step.action, Do::Click | Do::Hover | Do::Check | Do::Uncheck);
        if let (true, Some(text)) = (by_text, step.text.as_deref()) {
            let tab = &mut self.tabs[self.active];
            let analysis = tab.page.analysis(&mut self.refs).await?;
            return match target_by_text(analysis, text) {
                Some(found) => Ok(Some(found)),
                None => Err(BrowseError::new("not_found", format!("nothing on the page reads {text:?}"))),
            };
        }
        Ok(None)
    }

    /// The node of ref `r` in the active tab's document.
    pub(super) async fn node_of(&mut self, r: u32) -> Result<NodeId, BrowseError> {
        let Some((doc, node)) = self.refs.resolve(r) else {
            return Err(BrowseError::new("unknown_ref", format!("no element has ref {r}: observe again")));
        };
        if self.tabs[self.active].page.document_id() == Some(doc) {
            return Ok(node);
        }
        // Make sure the active page's refs are current before refusing (a
        // page captured again carries its refs to its new document).
        self.tabs[self.active].page.analysis(&mut self.refs).await?;
        if let Some((doc, node)) = self.refs.resolve(r)
            && self.tabs[self.active].page.document_id() == Some(doc)
        {
            return Ok(node);
        }
        if let Some(i) = self.tabs.iter().position(|t| t.page.document_id() == Some(doc)) {
            return Err(BrowseError::new(
                "unknown_ref",
                format!("ref {r} is on tab {}, not the active tab {}: switch tabs first", i + 1, self.active + 1),
            ));
        }
        Err(BrowseError::new("unknown_ref", format!("ref {r} belongs to a page that is gone: observe again")))
    }

    async fn check_snapshot(&mut self, sid: &str, r: u32) -> Result<(), BrowseError> {
        let stale = |why: String| BrowseError::new("snapshot_stale", format!("{why}: observe again"));
        let role_then = {
            let tab = &self.tabs[self.active];
            let Some(seen) = tab.seen.iter().find(|s| s.id == sid) else {
                return Err(stale(format!("snapshot {sid} is not one of this tab's recent observations")));
            };
            seen.roles.get(&r).copied()
        };
        let node = self.node_of(r).await.map_err(|_| stale(format!("ref {r} is gone since snapshot {sid}")))?;
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let role_now = analysis.tree.widgets.iter().find(|w| w.node == node).map(|w| role_word(w.role));
        match (role_then, role_now) {
            (Some(then), Some(now)) if then != now => Err(stale(format!("ref {r} was a {then} and is now a {now}"))),
            (Some(_), None) => Err(stale(format!("ref {r} is no longer shown"))),
            _ => Ok(()),
        }
    }

    /// The `✗` line of a failed step. The engine's refusals are predicates
    /// (`is disabled`, `is required`) about the target or, when `about`
    /// names another element, about that one.
    async fn failure_line(&mut self, head: &str, e: &BrowseError) -> String {
        if !matches!(e.code, "not_actionable" | "needs_script" | "invalid_form") {
            return format!("✗ {head}: {}", e.message);
        }
        let about = match e.about {
            Some(node) => self.describe(|w| w.node == node).await.map(|(line, _)| line),
            None => None,
        };
        match about {
            Some(other) if !head.ends_with(&other) => format!("✗ {head}: {other} {}", e.message),
            _ => format!("✗ {head} {}", e.message),
        }
    }

    /// `[r] role "name"` of the first widget of the active page that
    /// `which` picks, as the tree shows it, and whether it is a sensitive
    /// field; `None` when there is none or it has no ref.
    async fn describe(&mut self, which: impl Fn(&Widget) -> bool) -> Option<(String, bool)> {
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await.ok()?;
        let w = analysis.tree.widgets.iter().find(|w| which(w))?;
        let r = w.ref_id?;
        let name = whittle_engine::collapse_whitespace(&w.name);
        let line = if name.is_empty() { format!("[{r}] {}", role_word(w.role)) } else { format!("[{r}] {} {name:?}", role_word(w.role)) };
        Some((line, w.sensitive.is_some()))
    }
}

/// Checks what a step needs before anything runs.
fn check_step(s: &Step) -> Result<(), Fail> {
    let need = |what: bool, msg: &str| if what { Ok(()) } else { Err(invalid_args(format!("{}: {msg}", s.action.word()))) };
    match s.action {
        Do::Type => need(s.text.is_some(), "`text` is required"),
        Do::Select => need(s.values.as_ref().is_some_and(|v| !v.is_empty()), "`values` is required"),
        Do::Press => need(s.key.as_ref().is_some_and(|k| !k.is_empty()), "`key` is required"),
        Do::Scroll => need(s.dy.is_some_and(f64::is_finite), "`dy` (screens) is required"),
        Do::Upload => need(s.files.as_ref().is_some_and(|f| !f.is_empty()) && s.ref_id.is_some(), "`ref` and `files` are required"),
        Do::Click | Do::Hover | Do::Check | Do::Uncheck => {
            need(s.ref_id.is_some() || s.text.is_some(), "`ref` or `text` is required")
        }
        Do::Clear | Do::Submit => need(s.ref_id.is_some(), "`ref` is required"),
    }
}

/// A step in words, for lines that say what was not run.
fn step_words(s: &Step) -> String {
    let mut out = s.action.word().to_owned();
    if let Some(r) = s.ref_id {
        out.push_str(&format!(" [{r}]"));
    } else if let Some(t) = &s.text
        && matches!(s.action, Do::Click | Do::Hover | Do::Check | Do::Uncheck)
    {
        out.push_str(&format!(" {t:?}"));
    }
    out
}

/// What follows the target on a `✓` line: the typed text (its length only
/// for sensitive fields), the chosen options, the key, the distance.
fn step_detail(s: &Step, sensitive: bool) -> String {
    match s.action {
        // A token or `secret:NAME` is the model's own words: echoed as typed.
        Do::Type if sensitive && !Vault::mentions_tokens(s.text.as_deref().unwrap_or("")) => {
            format!(" ({} characters)", s.text.as_deref().unwrap_or("").chars().count())
        }
        Do::Type => format!(" {:?}", s.text.as_deref().unwrap_or("")),
        Do::Select => format!(" = {}", s.values.as_deref().unwrap_or(&[]).join(", ")),
        Do::Press => format!(" {}", s.key.as_deref().unwrap_or("")),
        Do::Scroll => format!(" {}", s.dy.unwrap_or(0.0)),
        Do::Upload => format!(" {} file(s)", s.files.as_ref().map_or(0, Vec::len)),
        _ => String::new(),
    }
}

/// The widget a step's `text` names: the first whose name equals it
/// (case and spacing aside), else the first whose name contains it; refs
/// only, in reading order.
fn target_by_text(a: &Analysis, text: &str) -> Option<(NodeId, u32)> {
    let wanted = whittle_engine::collapse_whitespace(text).to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let named = |w: &&whittle_engine::tree::Widget| w.ref_id.is_some();
    let norm = |s: &str| whittle_engine::collapse_whitespace(s).to_lowercase();
    let exact = a.tree.widgets.iter().filter(named).find(|w| norm(&w.name) == wanted);
    let w = exact.or_else(|| a.tree.widgets.iter().filter(named).find(|w| norm(&w.name).contains(&wanted)))?;
    Some((w.node, w.ref_id?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_need_their_arguments() {
        let step = |v: serde_json::Value| serde_json::from_value::<Step>(v).expect("present");
        assert!(check_step(&step(serde_json::json!({"do": "type", "ref": 3}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "type", "ref": 3, "text": "x"}))).is_ok());
        assert!(check_step(&step(serde_json::json!({"do": "click"}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "click", "text": "Go"}))).is_ok());
        assert!(check_step(&step(serde_json::json!({"do": "select", "ref": 1, "values": []}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "scroll", "dy": 1.5}))).is_ok());
        assert!(serde_json::from_value::<Step>(serde_json::json!({"do": "fly"})).is_err());
    }
}
