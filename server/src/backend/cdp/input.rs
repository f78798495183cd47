//! Acting on a page as a person would: pointer events at an element's box
//! (a DOM click when something else is there), keys, typed text, options
//! chosen, files, form values carried over from the static path; then what
//! the action did once the page settled (a dialog, a download, a new tab, a
//! navigation, a change). Invariant: an action's quiet window counts from
//! when its input was dispatched, and a dialog is accepted only while an
//! action the caller confirmed runs.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::dom::{
    BackendNodeId, DescribeNodeParams, FocusParams, ResolveNodeParams, ScrollIntoViewIfNeededParams,
    SetFileInputFilesParams,
};
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams,
    MouseButton,
};
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams};
use url::Url;

use super::{bounded, cdp_error};
use super::page::{CdpPage, Frame};
use crate::backend::{Arrival, BrowseError, Effect, PageAction};
use crate::tools::Do;

/// After an action: the longest wait for the page to become quiet.
const SETTLE_MAX: Duration = Duration::from_millis(2_500);

/// A change a person made to a control on the static path, carried into
/// Chromium by [`CdpPage::restore_form`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FormChange {
    /// A text control's typed value.
    Value(String),
    /// A checkbox's or radio button's checkedness.
    Checked(bool),
    /// An option's selectedness (its `<select>` is told of it).
    Selected(bool),
}

/// What an action did, for a caller that keeps the tabs a page opens as
/// Chromium tabs.
#[derive(Debug)]
pub(crate) enum Acted {
    /// The effect on this tab.
    Done(Effect),
    /// The page opened a new tab: here it is, loaded.
    Opened(Box<CdpPage>),
}

impl CdpPage {
    /// Waits until the page is quiet, at most [`SETTLE_MAX`].
    async fn settle(&self) {
        self.activity.quiet(tokio::time::Instant::now() + SETTLE_MAX).await;
    }

    /// Calls `function` (JavaScript, `this` the element) and returns its
    /// value.
    async fn call_on(&self, node: BackendNodeId, function: &str, args: Vec<serde_json::Value>) -> Result<serde_json::Value, BrowseError> {
        let resolved = bounded(self.page.execute(ResolveNodeParams::builder().backend_node_id(node).build())).await?;
        let Some(object) = resolved.result.object.object_id.clone() else {
            return Err(BrowseError::new("unknown_ref", "that element is gone from the page: observe again"));
        };
        let arguments: Vec<CallArgument> = args.into_iter().map(|v| CallArgument::builder().value(v).build()).collect();
        let params = CallFunctionOnParams::builder()
            .function_declaration(function)
            .object_id(object)
            .arguments(arguments)
            .return_by_value(true)
            .await_promise(false)
            .user_gesture(true)
            .build()
            .map_err(cdp_error)?;
        let r = bounded(self.page.execute(params)).await?;
        if let Some(e) = &r.result.exception_details {
            let message = e.exception.as_ref().and_then(|x| x.description.clone()).unwrap_or_else(|| e.text.clone());
            let first = message.lines().next().unwrap_or("").chars().take(200).collect::<String>();
            return Err(BrowseError::new("not_actionable", format!("the page refused: {first}")));
        }
        Ok(r.result.result.value.clone().unwrap_or(serde_json::Value::Null))
    }

    /// The centre of the element's first box, scrolled into view; `None`
    /// when it has no box.
    async fn centre(&self, node: BackendNodeId) -> Result<Option<(f64, f64)>, BrowseError> {
        let _ = bounded(self.page.execute(ScrollIntoViewIfNeededParams::builder().backend_node_id(node).build())).await;
        // The first box (a wrapped link's first line), not their union.
        Ok(self.quads(node).await.first().map(|r| (f64::from(r.x + r.width / 2.0), f64::from(r.y + r.height / 2.0))))
    }

    async fn mouse(&self, kind: DispatchMouseEventType, x: f64, y: f64, clicks: i64) -> Result<(), BrowseError> {
        let mut b = DispatchMouseEventParams::builder().r#type(kind.clone()).x(x).y(y);
        if !matches!(kind, DispatchMouseEventType::MouseMoved) {
            b = b.button(MouseButton::Left).click_count(clicks).buttons(1);
        }
        bounded(self.page.execute(b.build().map_err(cdp_error)?)).await?;
        Ok(())
    }

    /// A person's click: pointer events at the box centre when the element
    /// is what is there, else a DOM click.
    async fn click(&self, node: BackendNodeId) -> Result<(), BrowseError> {
        if let Some((x, y)) = self.centre(node).await? {
            let hit = self
                .call_on(
                    node,
                    "function(x, y) { const e = document.elementFromPoint(x, y); return !!e && (e === this || this.contains(e) || (this.labels && [...this.labels].some(l => l.contains(e)))); }",
                    vec![x.into(), y.into()],
                )
                .await?;
            if hit == serde_json::Value::Bool(true) {
                self.mouse(DispatchMouseEventType::MouseMoved, x, y, 0).await?;
                self.mouse(DispatchMouseEventType::MousePressed, x, y, 1).await?;
                self.mouse(DispatchMouseEventType::MouseReleased, x, y, 1).await?;
                return Ok(());
            }
        }
        self.call_on(node, "function() { this.click(); }", vec![]).await.map(|_| ())
    }

    async fn key(&self, combo: &str) -> Result<(), BrowseError> {
        let parts: Vec<&str> = combo.split('+').filter(|p| !p.is_empty()).collect();
        let Some((last, mods)) = parts.split_last() else {
            return Err(BrowseError::new("invalid_args", "press: `key` is empty"));
        };
        let mut modifiers = 0i64;
        for m in mods {
            modifiers |= match m.to_ascii_lowercase().as_str() {
                "alt" => 1,
                "control" | "ctrl" => 2,
                "meta" | "cmd" | "command" => 4,
                "shift" => 8,
                other => return Err(BrowseError::new("invalid_args", format!("press: unknown modifier {other:?}"))),
            };
        }
        let def = chromiumoxide::keys::USKEYBOARD_LAYOUT
            .iter()
            .find(|k| k.key == *last)
            .or_else(|| chromiumoxide::keys::USKEYBOARD_LAYOUT.iter().find(|k| k.key.eq_ignore_ascii_case(last)))
            .ok_or_else(|| BrowseError::new("invalid_args", format!("press: unknown key {last:?}")))?;
        let text = if modifiers & !8 != 0 { None } else { def.text.map(str::to_owned).or_else(|| (def.key.chars().count() == 1).then(|| def.key.to_owned())) };
        let down = DispatchKeyEventParams::builder()
            .r#type(if text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown })
            .key(def.key)
            .code(def.code)
            .windows_virtual_key_code(def.key_code)
            .native_virtual_key_code(def.key_code)
            .modifiers(modifiers);
        let down = match &text {
            Some(t) => down.text(t.clone()).unmodified_text(t.clone()),
            None => down,
        };
        bounded(self.page.execute(down.build().map_err(cdp_error)?)).await?;
        let up = DispatchKeyEventParams::builder()
            .r#type(DispatchKeyEventType::KeyUp)
            .key(def.key)
            .code(def.code)
            .windows_virtual_key_code(def.key_code)
            .native_virtual_key_code(def.key_code)
            .modifiers(modifiers)
            .build()
            .map_err(cdp_error)?;
        bounded(self.page.execute(up)).await?;
        Ok(())
    }

    /// The first new tab this page opened since the last look, loaded;
    /// any others are closed at once (a popup storm costs nothing).
    async fn popup(&mut self) -> Option<CdpPage> {
        let pages = bounded(self.running.browser.pages()).await.ok()?;
        let me = self.page.target_id().clone();
        let mut first = None;
        for p in pages {
            if p.opener_id().as_ref() != Some(&me) || !self.popups_seen.insert(p.target_id().clone()) {
                continue;
            }
            if first.is_some() {
                let _ = tokio::time::timeout(Duration::from_secs(2), p.close()).await;
                continue;
            }
            first = Some(p);
        }
        let mut tab = CdpPage::wrap(self.backend.clone(), self.running.clone(), self.session, self.viewport, first?).await;
        tab.generation = 1;
        // Opened by the page: its first document may have been parsed
        // before this tab listened to its events.
        if matches!(tab.ready_state().await.as_deref(), Some("interactive" | "complete"))
            && let Ok(f) = tab.frame().await
        {
            tab.activity.assume_parsed(f.loader);
        }
        tab.wait_arrival(None).await;
        if let Ok(f) = tab.frame().await {
            tab.url = Url::parse(&f.url).ok();
        }
        Some(tab)
    }

    /// Performs one action (the trait's `act`), giving a tab the page
    /// opened as a `CdpPage`.
    pub(crate) async fn act_on(&mut self, action: PageAction<'_>) -> Result<Acted, BrowseError> {
        if !self.alive() {
            return Err(Self::dead());
        }
        self.to_front().await;
        let before = self.frame().await?;
        self.dialogs.accept.store(action.confirm, Ordering::SeqCst);
        self.activity.begin(false);
        let target = match action.target {
            Some(n) => Some(self.backend_id(n)?),
            None => None,
        };
        let result = self.perform(&action, target).await;
        self.activity.acted();
        self.after_action(before, result).await
    }

    /// Runs `action` on the element `selector` finds (a tab that just
    /// moved here from the static path: its refs name nodes of the static
    /// document).
    pub(crate) async fn act_at(&mut self, selector: &str, action: PageAction<'_>) -> Result<Acted, BrowseError> {
        let node = self.find(selector).await?.ok_or_else(|| {
            BrowseError::new("not_found", "the element is not on the page as Chromium shows it: observe again")
        })?;
        self.to_front().await;
        let before = self.frame().await?;
        self.dialogs.accept.store(action.confirm, Ordering::SeqCst);
        self.activity.begin(false);
        let result = self.perform(&action, Some(node)).await;
        self.activity.acted();
        self.after_action(before, result).await
    }

    /// Puts what was changed in the static page's controls (typed,
    /// checked, selected) into the same controls here, each with the
    /// events a person's change fires, so the page's scripts see it. A
    /// control not found here is passed over.
    pub(crate) async fn restore_form(&mut self, changes: &[(String, FormChange)]) {
        for (selector, change) in changes {
            let Ok(Some(node)) = self.find(selector).await else { continue };
            let (set, value) = match change {
                FormChange::Value(v) => ("this.value = v; fire(this);", v.clone().into()),
                FormChange::Checked(on) => ("this.checked = v; fire(this);", (*on).into()),
                FormChange::Selected(on) => ("this.selected = v; const s = this.closest('select'); if (s) fire(s);", (*on).into()),
            };
            let function = format!(
                "function(v) {{ const fire = e => {{ e.dispatchEvent(new Event('input', {{bubbles: true}})); \
                 e.dispatchEvent(new Event('change', {{bubbles: true}})); }}; {set} }}"
            );
            let _ = self.call_on(node, &function, vec![value]).await;
        }
    }

    /// What an action did: waits for the page to settle, then reports
    /// dialogs and downloads, a new tab, a navigation, or a change.
    async fn after_action(&mut self, before: Frame, result: Result<(), BrowseError>) -> Result<Acted, BrowseError> {
        self.generation += 1;
        self.stale = true;
        if let Err(e) = result {
            self.dialogs.accept.store(false, Ordering::SeqCst);
            return Err(e);
        }
        self.settle().await;
        let after = self.frame().await.unwrap_or_else(|_| before.clone());
        self.dialogs.accept.store(false, Ordering::SeqCst);
        let mut events = self.download_lines().await;
        self.dialogs.lines.lock().unwrap_or_else(|e| e.into_inner()).append(&mut events);
        if let Some(tab) = self.popup().await {
            return Ok(Acted::Opened(Box::new(tab)));
        }
        if after.loader != before.loader {
            self.wait_arrival(Some(&before.loader)).await;
            let url = self.frame().await?.url;
            let from = self.url.clone();
            let to = Url::parse(&url).map_err(|_| BrowseError::new("nav_failed", "the page has no URL whittle can read"))?;
            self.url = Some(to.clone());
            self.live = None;
            return Ok(Acted::Done(Effect::Navigated(Arrival { from, to })));
        }
        if after.url != before.url {
            self.url = Url::parse(&after.url).ok().or(self.url.take());
        }
        Ok(Acted::Done(Effect::Changed))
    }

    /// The backend node id of the first element `selector` matches.
    async fn find(&self, selector: &str) -> Result<Option<BackendNodeId>, BrowseError> {
        let params = chromiumoxide::cdp::js_protocol::runtime::EvaluateParams::builder()
            .expression(format!("document.querySelector({})", serde_json::Value::String(selector.to_owned())))
            .build()
            .map_err(cdp_error)?;
        let r = bounded(self.page.execute(params)).await?;
        let Some(object) = r.result.result.object_id.clone() else { return Ok(None) };
        let node = bounded(self.page.execute(DescribeNodeParams::builder().object_id(object).build())).await?;
        Ok(Some(node.result.node.backend_node_id))
    }

    /// Resolves a selector to a node (for callers that know elements by
    /// their place in another engine's copy of the page).
    pub async fn node_at(&self, selector: &str) -> Option<BackendNodeId> {
        self.find(selector).await.ok().flatten()
    }

    async fn perform(&mut self, a: &PageAction<'_>, target: Option<BackendNodeId>) -> Result<(), BrowseError> {
        let need = || target.ok_or_else(|| BrowseError::new("invalid_args", "this action needs a `ref`"));
        match a.action {
            Do::Click => self.click(need()?).await,
            Do::Hover => {
                let node = need()?;
                match self.centre(node).await? {
                    Some((x, y)) => self.mouse(DispatchMouseEventType::MouseMoved, x, y, 0).await,
                    None => Err(BrowseError::new("not_actionable", "has no box to point at")),
                }
            }
            Do::Check | Do::Uncheck => {
                let node = need()?;
                let want = a.action == Do::Check;
                let state = self.call_on(node, "function() { return ('checked' in this) ? this.checked : (this.getAttribute('aria-checked') === 'true'); }", vec![]).await?;
                if state.as_bool() != Some(want) {
                    self.click(node).await?;
                }
                Ok(())
            }
            Do::Type => {
                let node = need()?;
                let text = a.text.unwrap_or("");
                let editable = self
                    .call_on(
                        node,
                        "function() { if (this.disabled) return 'disabled'; if (this.readOnly) return 'readonly'; this.focus(); \
                         if (typeof this.select === 'function' && 'value' in this) { this.select(); return 'ok'; } \
                         if (this.isContentEditable) { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); return 'ok'; } \
                         return 'not-editable'; }",
                        vec![],
                    )
                    .await?;
                match editable.as_str() {
                    Some("ok") => {}
                    Some("disabled") => return Err(BrowseError::new("not_actionable", "is disabled")),
                    Some("readonly") => return Err(BrowseError::new("not_actionable", "is read-only")),
                    _ => return Err(BrowseError::new("not_actionable", "is not a field one can type into")),
                }
                if text.is_empty() {
                    self.key("Delete").await
                } else {
                    bounded(self.page.execute(InsertTextParams::new(text))).await.map(|_| ())
                }
            }
            Do::Clear => {
                let node = need()?;
                self.call_on(
                    node,
                    "function() { this.focus(); if ('value' in this) { this.value = ''; } else if (this.isContentEditable) { this.textContent = ''; } \
                     this.dispatchEvent(new Event('input', {bubbles: true})); this.dispatchEvent(new Event('change', {bubbles: true})); }",
                    vec![],
                )
                .await
                .map(|_| ())
            }
            Do::Select => {
                let node = need()?;
                let missing = self
                    .call_on(
                        node,
                        "function(wanted) { if (!this.options) return ['not a list of options']; \
                         const norm = s => s.replace(/\\s+/g, ' ').trim().toLowerCase(); \
                         const picks = wanted.map(w => [...this.options].find(o => norm(o.label) === norm(w) || o.value === w || norm(o.text) === norm(w))); \
                         const missing = wanted.filter((w, i) => !picks[i]); if (missing.length) return missing; \
                         if (this.multiple) { for (const o of this.options) o.selected = picks.includes(o); } else { picks[0].selected = true; } \
                         this.dispatchEvent(new Event('input', {bubbles: true})); this.dispatchEvent(new Event('change', {bubbles: true})); return []; }",
                        vec![serde_json::json!(a.values)],
                    )
                    .await?;
                match missing.as_array() {
                    Some(m) if !m.is_empty() => {
                        let names: Vec<String> = m.iter().filter_map(|v| v.as_str()).map(|s| format!("{s:?}")).collect();
                        Err(BrowseError::new("not_found", format!("has no option {}", names.join(", "))))
                    }
                    _ => Ok(()),
                }
            }
            Do::Press => {
                if let Some(node) = target {
                    let _ = bounded(self.page.execute(FocusParams::builder().backend_node_id(node).build())).await;
                }
                self.key(a.key.unwrap_or("")).await
            }
            Do::Scroll => {
                let dy = a.dy.unwrap_or(1.0);
                match target {
                    Some(node) => self
                        .call_on(node, "function(dy) { this.scrollBy(0, dy * (this.clientHeight || innerHeight)); }", vec![dy.into()])
                        .await
                        .map(|_| ()),
                    None => self.eval_value(&format!("window.scrollBy(0, {dy} * innerHeight)")).await.map(|_| ()),
                }
            }
            Do::Upload => {
                let node = need()?;
                let mut files = Vec::new();
                for f in a.files {
                    let p = Path::new(f);
                    if !p.is_file() {
                        return Err(BrowseError::new("invalid_args", format!("no file {f:?}")));
                    }
                    files.push(p.canonicalize().unwrap_or_else(|_| p.to_owned()).display().to_string());
                }
                let params = SetFileInputFilesParams::builder().files(files).backend_node_id(node).build().map_err(cdp_error)?;
                bounded(self.page.execute(params)).await.map(|_| ())
            }
            Do::Submit => {
                let node = need()?;
                self.call_on(
                    node,
                    "function() { const f = this.form || this.closest('form') || (this.tagName === 'FORM' ? this : null); \
                     if (!f) throw new Error('is not in a form'); if (f.requestSubmit) f.requestSubmit(); else f.submit(); }",
                    vec![],
                )
                .await
                .map(|_| ())
            }
        }
    }
}
