"""`manage.py seed_demo` (make run): the demo campaign, loaded once whatever `make run` repeats."""

import io

import pytest
from django.core.management import call_command

from campaign.models import Campaign
from characters.models import Character
from play.management.commands.seed_demo import DEMO_CAMPAIGN

pytestmark = pytest.mark.django_db


def seed():
    call_command("seed_demo", stdout=io.StringIO())


def test_seeding_twice_keeps_one_demo_campaign_and_its_characters():
    seed()
    campaign = Campaign.objects.get(name=DEMO_CAMPAIGN)
    count = Character.objects.filter(campaign=campaign).count()
    assert count > 0
    seed()
    assert list(Campaign.objects.values_list("pk", flat=True)) == [campaign.pk]
    assert Character.objects.filter(campaign=campaign).count() == count


def test_a_demo_seeded_under_the_old_straight_apostrophe_is_kept():
    Campaign.objects.create(name=DEMO_CAMPAIGN.replace("’", "'"))
    seed()
    assert Campaign.objects.count() == 1
