//! `observe`: the active tab's view as the model reads it, folded to a
//! budget, and the rendering every tool that shows the page goes through
//! (`view`). Invariant: each observation is remembered under its
//! `snapshot_id` for the checks of later actions, and the values of the
//! sensitive fields it shows become secrets of the session before anything
//! is sent.

use whittle_engine::{Envelope, FoldOptions, Folded, Mode, Observation, RenderOptions, fold, render, with_main_content};

use super::{Baseline, Fail, Seen, Session, Tab, ToolOutput, invalid_args, picture_line, with_notices};
use crate::backend::Analysis;
use crate::tools::{ModeArg, ObserveArgs};

/// How many observations per tab an action may name by `snapshot_id`.
const SNAPSHOTS_KEPT: usize = 16;
/// The most values of sensitive fields a session remembers as secrets.
const MAX_FIELD_SECRETS: usize = 256;

impl Session {
    pub(super) async fn observe(&mut self, args: ObserveArgs) -> Result<ToolOutput, Fail> {
        let mode = match args.mode {
            None | Some(ModeArg::Full) => Mode::Full,
            Some(ModeArg::Actions) => Mode::Actions,
            Some(ModeArg::Read) => Mode::Read,
        };
        if args.budget == Some(0) {
            return Err(invalid_args("budget must be at least 1"));
        }
        let fold_options = FoldOptions {
            mode,
            budget: Some(args.budget.unwrap_or(whittle_engine::fold::DEFAULT_BUDGET)),
            expand: args.ref_id,
            content: None,
        };
        if let Some(r) = args.ref_id {
            self.node_of(r).await?;
        }
        let (obs, mut envelope) = self.view("observe", &fold_options).await?;
        let mut image = None;
        let mut line = String::new();
        if args.image == Some(true) {
            match self.picture(&mut envelope, None, true).await {
                Ok(done) => {
                    line = picture_line("image of the view", &done);
                    image = Some(done);
                }
                // The observation stands without its picture (a tab that
                // cannot be drawn, a picture that failed): the notice says
                // why, and the envelope is that of an observation without
                // `image`.
                Err(e) => envelope.server.notices.push(format!("no image ({}): {}", e.code, e.message)),
            }
        }
        let mut text = with_notices(&obs.text(), &envelope);
        text.push_str(&line);
        Ok(ToolOutput { text, envelope, image })
    }

    /// Renders the active tab with `options`, remembers the observation
    /// for `snapshot_id` checks, and gives it with its envelope.
    pub(super) async fn view(&mut self, tool: &str, options: &FoldOptions) -> Result<(Observation, Envelope), Fail> {
        let ids = self.ids(tool);
        let tab = &mut self.tabs[self.active];
        let origin = tab.page.url().map(|u| u.origin().ascii_serialization());
        // Analysing first: it may add notices (a tab moved to Chromium).
        tab.page.analysis(&mut self.refs).await?;
        let engine = tab.page.engine();
        let mut notices = tab.page.notices();
        let host = tab.page.url().and_then(|u| u.host_str()).map(str::to_owned);
        // Read once the page is analysed (analysing may move the tab to
        // another engine, a new generation); analysing again keeps it.
        let generation = tab.page.generation();
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let is_default = *options == FoldOptions::default();
        // The page has not changed since its default view was rendered:
        // that view holds (an observation holds for its generation).
        let obs = match &tab.baseline {
            Some(b) if is_default && b.generation == generation => b.observation.clone(),
            _ => {
                let folded = fold_view(tab.baseline.as_ref(), analysis, options, is_default);
                let obs = render(&analysis.document, &folded);
                if is_default {
                    tab.baseline = Some(Baseline { generation, folded, observation: obs.clone() });
                }
                obs
            }
        };
        // Values of sensitive fields (prefilled, or typed) become secrets of
        // the session: a page that shows one as text later (a careless
        // echo) shows its token instead.
        for w in analysis.tree.widgets.iter().filter(|w| w.sensitive.is_some()) {
            if self.field_values.len() >= MAX_FIELD_SECRETS {
                break;
            }
            let value = whittle_engine::dom::form::control_value(&analysis.document, w.node);
            if !value.is_empty() && self.field_values.insert(value.clone()) {
                // `#` is in no name of the secrets file.
                let kind = w.sensitive.map_or("field", |k| k.as_str());
                let n = self.field_values.len();
                self.vault.set_site(host.as_deref());
                self.vault.add_site_secret(&format!("{kind}#{n}"), &value);
            }
        }
        let mut envelope = Envelope::observation(ids, engine, &analysis.layout, &obs, &analysis.tree, origin);
        envelope.server.notices.append(&mut notices);
        remember(tab, &envelope);
        Ok((obs, envelope))
    }

    /// The active tab's default view, from the baseline when the page has
    /// not changed since it was rendered.
    pub(super) async fn default_view(&mut self) -> Result<Observation, Fail> {
        let tab = &self.tabs[self.active];
        if let Some(b) = &tab.baseline
            && b.generation == tab.page.generation()
        {
            return Ok(b.observation.clone());
        }
        Ok(self.view("act", &FoldOptions::default()).await?.0)
    }
}

/// The page folded for `options`: from the baseline's lines when only
/// field values changed since it (the default view), else anew.
fn fold_view(baseline: Option<&Baseline>, analysis: &Analysis, options: &FoldOptions, is_default: bool) -> Folded {
    if let Some(b) = baseline
        && is_default
        && !analysis.values_since.1.is_empty()
        && b.generation >= analysis.values_since.0
        && let Some(f) = whittle_engine::fold::refold_values(&b.folded, &analysis.tree, options, &RenderOptions::default(), &analysis.values_since.1)
    {
        return f;
    }
    let options = with_main_content(*options, &analysis.document, &analysis.styles, &analysis.concealment, &analysis.semantics);
    fold(&analysis.document, &analysis.tree, &analysis.layout, &options, &RenderOptions::default())
}

/// Remembers an observation for `snapshot_id` checks.
fn remember(tab: &mut Tab, envelope: &Envelope) {
    let id = envelope.server.snapshot_id.clone();
    if tab.seen.iter().any(|s| s.id == id) {
        return;
    }
    let roles = envelope.page_content.as_ref().map(|p| p.elements.iter().map(|e| (e.ref_id, e.role)).collect()).unwrap_or_default();
    if tab.seen.len() == SNAPSHOTS_KEPT {
        tab.seen.pop_front();
    }
    tab.seen.push_back(Seen { id, roles });
}
