from django.urls import path

from play import (
    campaign_views,
    fight_views,
    player,
    proposal_views,
    request_views,
    screen_views,
    views,
)

urlpatterns = [
    path(
        "c/<int:campaign_id>/settings/",
        campaign_views.campaign_settings,
        name="campaign_settings",
    ),
    path(
        "c/<int:campaign_id>/settings/archive.json",
        campaign_views.campaign_archive,
        name="campaign_archive",
    ),
    path("c/<int:campaign_id>/members/leave/", campaign_views.leave, name="leave"),
    path(
        "c/<int:campaign_id>/members/<int:membership_id>/remove/",
        campaign_views.member_remove,
        name="member_remove",
    ),
    path(
        "c/<int:campaign_id>/members/<int:membership_id>/role/",
        campaign_views.member_role,
        name="member_role",
    ),
    path("c/<int:campaign_id>/", views.campaign_detail, name="campaign"),
    path("c/<int:campaign_id>/screen/", screen_views.screen_gm, name="screen"),
    path("c/<int:campaign_id>/screen/part/", screen_views.screen_gm_part, name="screen_part"),
    path(
        "c/<int:campaign_id>/settings/screen-link/",
        screen_views.screen_link_manage,
        name="screen_link_manage",
    ),
    # The table screen's link: no session, the token is the key (play/screen.py).
    path("screen/<int:campaign_id>/<str:token>/", screen_views.screen_link, name="screen_link"),
    path(
        "screen/<int:campaign_id>/<str:token>/part/",
        screen_views.screen_link_part,
        name="screen_link_part",
    ),
    path("c/<int:campaign_id>/off-table/", screen_views.off_table, name="off_table"),
    path("c/<int:campaign_id>/templates/", screen_views.npc_templates, name="npc_templates"),
    path(
        "c/<int:campaign_id>/templates/new/",
        screen_views.npc_template_create_view,
        name="npc_template_create",
    ),
    path(
        "c/<int:campaign_id>/templates/<int:template_id>/spawn/",
        screen_views.npc_template_spawn_view,
        name="npc_template_spawn",
    ),
    path(
        "c/<int:campaign_id>/templates/<int:template_id>/delete/",
        screen_views.npc_template_delete_view,
        name="npc_template_delete",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/template/",
        screen_views.npc_template_save_view,
        name="npc_template_save",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/duplicate/",
        screen_views.character_duplicate_view,
        name="character_duplicate",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/in-play/",
        screen_views.character_in_play_view,
        name="character_in_play",
    ),
    path("c/<int:campaign_id>/view/", views.dashboard_view, name="dashboard_view"),
    path("c/<int:campaign_id>/characters/new/", views.character_create, name="character_create"),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/",
        views.character_sheet,
        name="character",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/edit/",
        views.character_edit,
        name="character_edit",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/card/",
        views.character_card,
        name="character_card",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/menu/",
        views.character_menu,
        name="character_menu",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/probability/",
        views.check_probability,
        name="check_probability",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/feed/",
        player.character_feed,
        name="character_feed",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/roll/",
        player.character_roll,
        name="character_roll",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/free-roll/",
        player.character_free_roll,
        name="character_free_roll",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/act/<slug:action>/",
        views.character_action,
        name="character_action",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/act/<slug:action>/probability/",
        views.action_probability,
        name="action_probability",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/ask/",
        request_views.roll_ask,
        name="roll_ask",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/ask/probability/",
        request_views.roll_ask_probability,
        name="roll_ask_probability",
    ),
    path("c/<int:campaign_id>/ask/", request_views.party_ask, name="party_ask"),
    path(
        "c/<int:campaign_id>/requests/<int:request_id>/answer/",
        request_views.roll_answer,
        name="roll_answer",
    ),
    path(
        "c/<int:campaign_id>/requests/<int:request_id>/cancel/",
        request_views.roll_cancel,
        name="roll_cancel",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/propose/",
        proposal_views.proposal_create,
        name="proposal_create",
    ),
    path(
        "c/<int:campaign_id>/proposals/<int:proposal_id>/approve/",
        proposal_views.proposal_approve_view,
        name="proposal_approve",
    ),
    path(
        "c/<int:campaign_id>/proposals/<int:proposal_id>/edit/",
        proposal_views.proposal_edit,
        name="proposal_edit",
    ),
    path(
        "c/<int:campaign_id>/proposals/<int:proposal_id>/refuse/",
        proposal_views.proposal_refuse_view,
        name="proposal_refuse",
    ),
    path(
        "c/<int:campaign_id>/proposals/<int:proposal_id>/withdraw/",
        proposal_views.proposal_withdraw_view,
        name="proposal_withdraw",
    ),
    path("c/<int:campaign_id>/party/<slug:action>/", views.party_action, name="party_action"),
    # Several targets at once: the ticked characters (play/services/group.py).
    path("c/<int:campaign_id>/group/<slug:action>/", views.group_action, name="group_action"),
    path(
        "c/<int:campaign_id>/party/<slug:action>/forecast/",
        views.party_forecast,
        name="party_forecast",
    ),
    path("c/<int:campaign_id>/fight/start/", fight_views.fight_start, name="fight_start"),
    path(
        "c/<int:campaign_id>/fight/start/form/",
        fight_views.fight_start_form,
        name="fight_start_form",
    ),
    path("c/<int:campaign_id>/fight/next/", fight_views.fight_next_turn, name="fight_next_turn"),
    path("c/<int:campaign_id>/fight/end/", fight_views.fight_end, name="fight_end"),
    path("c/<int:campaign_id>/fight/join/", fight_views.fight_join, name="fight_join"),
    path(
        "c/<int:campaign_id>/fight/<int:character_id>/move/<slug:direction>/",
        fight_views.fight_move,
        name="fight_move",
    ),
    path(
        "c/<int:campaign_id>/fight/<int:character_id>/spend/<slug:what>/",
        fight_views.fight_spend,
        name="fight_spend",
    ),
    path(
        "c/<int:campaign_id>/history/<int:entry_id>/undo/",
        views.entry_undo,
        name="entry_undo",
    ),
    path(
        "c/<int:campaign_id>/history/<int:entry_id>/undo-action/",
        views.action_undo,
        name="action_undo",
    ),
]
