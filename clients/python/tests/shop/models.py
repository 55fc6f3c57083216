"""Models like django-action-triggers' test models: a ForeignKey, a OneToOne, a ManyToMany."""
import uuid

from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(unique=True)
    joined = models.DateField(null=True, blank=True)


class Profile(models.Model):
    customer = models.OneToOneField(Customer, on_delete=models.CASCADE, related_name="profile")
    bio = models.TextField(blank=True)


class Tag(models.Model):
    """Not listed in CONTENT_TYPES: emits nothing."""
    name = models.CharField(max_length=50)


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="orders")
    ref = models.UUIDField(default=uuid.uuid4)
    total = models.DecimalField(max_digits=10, decimal_places=2)
    placed_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    attachment = models.FileField(upload_to="orders/", blank=True)
    tags = models.ManyToManyField(Tag, blank=True)
    status = models.CharField(max_length=16, default="pending")
